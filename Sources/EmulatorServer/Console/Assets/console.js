// The console's pages. Everything shown comes from the API as data and is put in the page with
// textContent only, never as markup: a user id or a topic holding <script> is shown as text.
"use strict";

const $ = (id) => document.getElementById(id);

/** An element with a class and text. */
function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

/** A table row of cells, each given as text. */
function row(cells) {
  const tr = document.createElement("tr");
  for (const cell of cells) tr.appendChild(cell instanceof Node ? cell : el("td", cell));
  return tr;
}

async function getJSON(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `${path}: ${response.status}`);
  return body;
}

function showError(error) {
  const box = $("error");
  box.hidden = !error;
  box.textContent = error ? String(error.message || error) : "";
}

// Requests ---------------------------------------------------------------------------------------

const seen = new Set();
let run = null;

/** A new run of serve numbers its requests from 1 again: start the list again. */
function hello(data) {
  if (run !== null && run !== data.run) {
    seen.clear();
    $("requests").tBodies[0].replaceChildren();
    $("detail").hidden = true;
    $("requests-empty").hidden = false;
  }
  run = data.run;
}

function addRequest(request) {
  if (seen.has(request.id)) return;
  seen.add(request.id);
  const status = el("td", request.status, `status-${String(request.status)[0]}`);
  const tr = row([
    String(request.id),
    request.time,
    request.method,
    request.path,
    request.user ?? "—",
    status,
    request.authorizer === "none" ? "—" : `${request.decision} (${request.authorizer})`,
    request.units ?? "—",
    request.milliseconds,
  ]);
  tr.dataset.id = String(request.id);
  tr.dataset.user = request.user ?? "";
  tr.addEventListener("click", () => showDetail(request.id, tr));
  const body = $("requests").tBodies[0];
  body.insertBefore(tr, body.firstChild);
  $("requests-empty").hidden = true;
}

async function showDetail(id, tr) {
  for (const selected of document.querySelectorAll("#requests tr.selected")) selected.classList.remove("selected");
  tr.classList.add("selected");
  try {
    const detail = await getJSON(`/api/requests/${encodeURIComponent(id)}`);
    const summary = detail.summary;
    $("detail-title").textContent = `#${summary.id} ${summary.method} ${summary.path} → ${summary.status}`;
    $("detail-event").textContent = JSON.stringify(detail.event, null, 2);
    $("detail-authorizer").textContent = detail.authorizer
      ? JSON.stringify(detail.authorizer, null, 2)
      : "not called";
    const response = detail.response;
    let body = response.body;
    try { body = JSON.stringify(JSON.parse(body), null, 2); } catch (_) { /* not JSON: shown as it is */ }
    $("detail-response").textContent =
      `${response.status}\n${response.headers.map(([name, value]) => `${name}: ${value}`).join("\n")}\n\n${body}`;
    showTimeline(detail);
    $("detail").hidden = false;
    showError(null);
  } catch (error) {
    showError(error);
  }
}

// The request's time: API Gateway's whole answer, whether the authorizer ran or was cached, then
// each subsegment the runtime sent, indented by depth, as a bar over the function's own time.
function showTimeline(detail) {
  const rows = detail.timeline || [];
  const summary = detail.summary;
  $("timeline-gateway").textContent =
    `API Gateway: ${summary.milliseconds} ms in all; authorizer: ${summary.authorizer === "none" ? "not called" : summary.authorizer}`;
  const body = $("timeline").querySelector("tbody");
  body.replaceChildren();
  $("timeline-empty").hidden = rows.length > 0;
  const total = rows.length ? Math.max(...rows.map((row) => row.offset + row.duration), 0.01) : 1;
  for (const row of rows) {
    const tr = document.createElement("tr");
    const name = document.createElement("td");
    name.textContent = row.name + (row.operation ? ` ${row.operation}` : "");
    name.style.paddingLeft = `${8 + 16 * row.depth}px`;
    const facts = document.createElement("td");
    facts.textContent = [
      row.status !== undefined ? `status ${row.status}` : null,
      row.retries ? `${row.retries} retries` : null,
      ...(row.flags || []),
    ].filter(Boolean).join(", ");
    const time = document.createElement("td");
    time.textContent = `${row.duration.toFixed(2)} ms`;
    const barCell = document.createElement("td");
    barCell.className = "span-cell";
    const bar = document.createElement("div");
    bar.className = "span" + ((row.flags || []).length ? " flagged" : "");
    bar.style.marginLeft = `${(100 * row.offset) / total}%`;
    bar.style.width = `${Math.max((100 * row.duration) / total, 0.5)}%`;
    barCell.append(bar);
    tr.append(name, facts, time, barCell);
    body.append(tr);
  }
}

// Clock and rebuilds -----------------------------------------------------------------------------

/** Shows the stack's time; the +1 hour button only when its clock is virtual. */
function showClock(data) {
  $("clock-now").textContent = data.virtual ? `${data.now} (virtual)` : data.now;
  $("clock-advance").hidden = !data.virtual;
  document.body.dataset.clock = data.now;
}

// Only the answer to the latest clock request is shown: a read sent before a +1 hour and answered
// after it would show the old time.
let clockRequest = 0;

async function loadClock() {
  const mine = ++clockRequest;
  const data = await getJSON("/api/clock");
  if (mine === clockRequest) showClock(data);
}

async function advanceClock() {
  const mine = ++clockRequest;
  const response = await fetch("/api/clock", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ advance: "PT1H" }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `/api/clock: ${response.status}`);
  if (mine === clockRequest) showClock(body);
  if (document.body.dataset.page === "users") await loadUsers();
}

/** A line of serve --watch's rebuilds, newest first; a failed build with the compiler's first lines. */
function addRebuild(rebuild) {
  const item = el("li", rebuild.message, `rebuild rebuild-${rebuild.stage}`);
  item.dataset.stage = rebuild.stage;
  if (rebuild.lines.length > 0) item.appendChild(el("pre", rebuild.lines.join("\n")));
  const list = $("rebuilds");
  list.insertBefore(item, list.firstChild);
  list.hidden = false;
}

async function loadRebuilds() {
  const data = await getJSON("/api/rebuilds");
  $("rebuilds").replaceChildren();
  for (const rebuild of data.rebuilds) addRebuild(rebuild);
}

function connectLive() {
  const source = new EventSource("/api/events");
  source.addEventListener("open", () => { $("live").textContent = "live"; $("live").classList.remove("off"); });
  source.addEventListener("error", () => { $("live").textContent = "reconnecting"; $("live").classList.add("off"); });
  source.addEventListener("hello", (event) => hello(JSON.parse(event.data)));
  source.addEventListener("exchange", (event) => {
    addRequest(JSON.parse(event.data));
    loadClock().catch(showError);
  });
  source.addEventListener("rebuild", (event) => addRebuild(JSON.parse(event.data)));
}

// Users ------------------------------------------------------------------------------------------

function bar(name, window) {
  const share = window.limit > 0 ? Math.min(1, window.used / window.limit) : 1;
  const fill = el("div", null, `fill${share >= 1 ? " full" : share >= 0.6 ? " high" : ""}`);
  fill.style.width = `${Math.round(share * 100)}%`;
  const track = el("div", null, "bar");
  track.appendChild(fill);
  track.setAttribute("role", "meter");
  track.setAttribute("aria-valuenow", String(window.used));
  track.setAttribute("aria-valuemax", String(window.limit));
  const line = el("div", null, "bar-row");
  line.dataset.window = name;
  line.append(el("span", name), track, el("span", `${window.used} / ${window.limit}`, "count"));
  line.append(el("span", `resets ${window.resetsAt}`, "reset"));
  return line;
}

async function loadUsers() {
  const data = await getJSON("/api/users");
  $("users-now").textContent = data.now;
  const list = $("users");
  list.replaceChildren();
  for (const user of data.users) {
    const card = el("div", null, "user");
    card.dataset.user = user.userId;
    const title = el("h3", user.userId);
    title.title = `partition ${user.partition}`;
    title.appendChild(el("span", user.tierKnown ? user.tier : `${user.tier} (assumed)`, "tier"));
    card.append(title, bar("month", user.month), bar("day", user.day), bar("hour", user.hour));
    list.appendChild(card);
  }
  $("users-empty").hidden = data.users.length > 0;
  if (!$("refused-date").value) $("refused-date").value = data.today;
  await loadRefused();
}

async function loadRefused() {
  const date = $("refused-date").value;
  if (!date) return;
  const data = await getJSON(`/api/refused?date=${encodeURIComponent(date)}`);
  const body = $("refused").tBodies[0];
  body.replaceChildren();
  for (const user of data.users) {
    const tr = row([user.userId, user.tier ?? "—", user.window ?? "—", user.blockedUntil ?? "—"]);
    tr.dataset.user = user.userId;
    body.appendChild(tr);
  }
  $("refused-empty").hidden = data.users.length > 0;
}

// Table ------------------------------------------------------------------------------------------

function attributeText(value) {
  const [type, inner] = Object.entries(value)[0] ?? ["?", null];
  return type === "S" || type === "N" ? String(inner) : JSON.stringify(value);
}

async function loadTable() {
  const pk = $("table-pk").value.trim();
  const data = await getJSON(`/api/table${pk ? `?pk=${encodeURIComponent(pk)}` : ""}`);
  const body = $("items").tBodies[0];
  body.replaceChildren();
  for (const item of data.items) {
    const rest = Object.keys(item).filter((name) => name !== "PK" && name !== "SK").sort();
    const attributes = el("td");
    for (const name of rest) attributes.appendChild(el("div", `${name} = ${attributeText(item[name])}`));
    body.appendChild(row([item.PK ? attributeText(item.PK) : "", item.SK ? attributeText(item.SK) : "", attributes]));
  }
  $("table-count").textContent =
    `${data.count} item${data.count === 1 ? "" : "s"}${pk ? ` in ${pk}` : ""}${data.truncated ? " (first ones only)" : ""}`;
}

// Pages ------------------------------------------------------------------------------------------

// User pool ------------------------------------------------------------------------------------

async function loadPool() {
  const response = await fetch("/api/pool", { headers: { Accept: "application/json" } });
  const body = await response.json();
  const rows = $("pool-users").tBodies[0];
  rows.replaceChildren();
  if (!response.ok) {
    $("pool-empty").textContent = body.error;
    $("pool-empty").hidden = false;
    $("pool-groups").textContent = "";
    return;
  }
  for (const user of body.users) {
    rows.appendChild(row([user.sub, user.email ?? "—", user.status, user.tier, user.groups.join(", ") || "—"]));
  }
  $("pool-empty").textContent = "No user has signed up.";
  $("pool-empty").hidden = body.users.length > 0;
  $("pool-groups").textContent = `Groups: ${body.groups.join(", ")}`;
}

const pages = { requests: null, users: loadUsers, table: loadTable, pool: loadPool };

async function route() {
  const name = Object.hasOwn(pages, location.hash.slice(1)) ? location.hash.slice(1) : "requests";
  for (const page of Object.keys(pages)) {
    $(`page-${page}`).hidden = page !== name;
    $(`nav-${page}`).classList.toggle("current", page === name);
  }
  document.body.dataset.page = name;
  document.body.dataset.loaded = "";
  try {
    if (pages[name]) await pages[name]();
    showError(null);
  } catch (error) {
    showError(error);
  }
  document.body.dataset.loaded = name;
}

$("refused-form").addEventListener("submit", (event) => { event.preventDefault(); loadRefused().catch(showError); });
$("table-form").addEventListener("submit", (event) => { event.preventDefault(); loadTable().catch(showError); });
$("clock-advance").addEventListener("click", () => advanceClock().catch(showError));
window.addEventListener("hashchange", route);
loadClock().catch(showError);
loadRebuilds().catch(showError);
connectLive();
route();
