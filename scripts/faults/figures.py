"""Prints the figures of a run (`scripts/faults.sh --json FILE`) as RELIABILITY.md's table:
    python3 scripts/faults/figures.py FILE"""

import json
import sys


def main(path):
    run = json.load(open(path))
    print(f"Seed {run['seed']}, {'--quick' if run['quick'] else 'full'}.\n")
    print("| scenario | calls | requests | answers | faults injected | crashes | violations |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    totals = [0, 0, 0, 0]
    for r in run["scenarios"]:
        answers = ", ".join(f"{k}: {v}" for k, v in r["answers"].items())
        faults = ", ".join(f"{k} {v}" for k, v in r["faults"].items()) or "—"
        violations = ", ".join(f"`{k}` {v}" for k, v in r["violations"].items()) or "0"
        print(f"| `{r['scenario']}` | {r['calls']} | {r['requests']} | {answers} | {faults} | {r['crashes']} | {violations} |")
        totals[0] += r["requests"]
        totals[1] += sum(r["faults"].values())
        totals[2] += r["crashes"]
        totals[3] += sum(r["violations"].values())
    incidents = {r["scenario"]: r.get("proxyIncidents") for r in run["scenarios"] if r.get("proxyIncidents")}
    if incidents:
        print(f"\nProxy incidents (the upstream failed or took over 5 s; not injected): {incidents}")
    print(f"\n{len(run['scenarios'])} scenarios, {totals[0]} requests, {totals[1]} faults injected, "
          f"{totals[2]} crashes, {totals[3]} violations.")


if __name__ == "__main__":
    main(sys.argv[1])
