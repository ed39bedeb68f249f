"""The scenarios: which faults, on which stack, with which users. Probabilities are per call of
the operation (or of the model); `quick` sizes are for CI, the others for a longer local run."""

from schedule import Rule

# Free users have a day limit of 3 (limits file below), so they are refused during a run;
# premium users are never refused. Both get fresh names in every run.
LIMITS = {"free": {"monthly": 100000, "daily": 3, "hourly": 100000},
          "premium": {"monthly": 100000, "daily": 100000, "hourly": 100000}}
FREE_DAILY = LIMITS["free"]["daily"]

MODEL_OK = {}
MODEL_SLOW = {"model": [Rule("slow", 0.4, 1.0)]}


class Scenario:
    def __init__(self, name, summary, rules, store="moto", function="generateQuestions", free=1, premium=3,
                 calls=(3, 8), crash=None, refusals_judged=False, sandboxes=None):
        self.name, self.summary, self.rules, self.store, self.function = name, summary, rules, store, function
        # Bootstraps polling serve's Runtime API: by default one per client, as Lambda gives each
        # concurrent request a sandbox of its own (with fewer, requests wait in serve past API
        # Gateway's timeout before any code sees them, which production does not do). The crash
        # scenarios keep two, so a kill finds a busy runtime and the load outlasts the kills.
        self.sandboxes = sandboxes
        self.free, self.premium, self.calls, self.crash = free, premium, calls, crash
        self.refusals_judged = refusals_judged


SCENARIOS = [
    Scenario("model-hang",
             "(a) the model hangs past the deadline (INKRA_GATEWAY_TIMEOUT=3), is slow, or fails: every "
             "unit of a call not answered 200 must come back",
             {"model": [Rule("hang", 0.3, 8.0), Rule("slow", 0.2, 1.0), Rule("fail", 0.1)]}),
    Scenario("getitem-500",
             "(b) GetItem answers 500 (the read after a committed charge): the outcome is known, the unit "
             "is answered or given back",
             {"GetItem": [Rule("status-500", 0.7)]}),
    Scenario("refusal-updateitem",
             "(c) UpdateItem fails (500, throttling, dropped) while free users are refused: a refusal "
             "stays 429, never 503",
             {"UpdateItem": [Rule("status-500", 0.4), Rule("throttling", 0.2), Rule("drop-before", 0.2)]},
             free=3, premium=1, calls=(4, 10), refusals_judged=True),
    Scenario("transactions",
             "(d) TransactWriteItems cancelled for throttling or conflict, throttled, delayed, dropped "
             "before or after it is applied (an unknown outcome)",
             {"TransactWriteItems": [Rule("cancel-throttling", 0.15), Rule("cancel-conflict", 0.15),
                                     Rule("drop-after", 0.15), Rule("throughput", 0.05),
                                     Rule("throttling", 0.05), Rule("drop-before", 0.05), Rule("delay", 0.1, 0.3)]}),
    Scenario("crash-bootstrap",
             "(e) SIGKILL of a bootstrap in the middle of requests, restarted at once; clients retry "
             "with their keys",
             dict(MODEL_SLOW, TransactWriteItems=[Rule("delay", 0.3, 0.4)], UpdateItem=[Rule("delay", 0.3, 0.4)]),
             calls=(5, 12), crash="runtime", sandboxes=2),
    Scenario("crash-serve",
             "(e) SIGKILL of serve (in-memory table, --state) and its runtimes mid-load, restarted with "
             "the same --state; users signed up in serve's Cognito pool before the kill must survive it",
             dict(MODEL_SLOW, TransactWriteItems=[Rule("delay", 0.3, 0.4)], UpdateItem=[Rule("delay", 0.3, 0.4)]),
             store="memory", calls=(5, 12), crash="serve", sandboxes=2),
    Scenario("unprocessed-keys",
             "(f) BatchGetItem leaves keys in UnprocessedKeys (checkUsage on the bootstrap): each client "
             "gets its usage, right: every answer within the deadline, a 503 only when the table kept the keys "
             "unprocessed for all of it, and retried after Retry-After (4 tries)",
             {"BatchGetItem": [Rule("unprocessed", 0.6)]}, function="checkUsage"),
]
