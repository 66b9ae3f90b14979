#!/usr/bin/env python3
"""The peers' tables (scripts/cpu-peers.sh) from its CSV.

usage: table.py PEERS.csv "50 200 800" > PEERS.md

For each corpus and K: a row a system, a cell an iteration count of the CSV: "seconds → held-out
log-likelihood a token", the training tokens a second (the whole run's, and the range over its
segments), the load averages and the probe's ms an iteration (cpu-peers.sh's PROBE_SLACK) before
its runs. Then the levels: the best held-out figure any peer (every system but ldagpu) reaches
after each iteration count of the second argument (where the CSV has it), and the seconds each
system takes to reach it, by linear interpolation between its points (the time it reaches the
level in a straight line from the point before; "not reached" past its last point), with each
ldagpu run's time as a fraction of the fastest peer's (ldagpu:NAME: trained with --sampler NAME).

Where a system was trained with several seeds (the CSV's seed column; cpu-peers.sh's SEEDS), each
of its cells is the mean over its seeds of the seconds and of the held-out figure at that point (a
point that some of its seeds lack is left out), the levels are read from those means, and a table
seed by seed follows the means.
Only the standard library.
"""
import csv
import sys
from collections import defaultdict

ORDER = ["ldagpu", "mallet", "tomotopy", "warplda"]


def seconds(s):
    return f"{s:.2f}" if s < 10 else f"{s:.1f}" if s < 100 else f"{s:.0f}"


def time_to(points, level):
    """Seconds at which the (seconds, loglik) points, in order, first reach level; None if never."""
    prev = (0.0, None)
    for s, ll in points:
        if ll >= level:
            if prev[1] is None or prev[1] >= ll:
                return s
            return prev[0] + (s - prev[0]) * (level - prev[1]) / (ll - prev[1])
        prev = (s, ll)
    return None


def seed_of(row):
    return row.get("seed") or "1"


def mean_rows(rows):
    """A system's rows of several seeds as one row an iteration count: the means of the seconds and
    of the held-out figure; the rates the means of the seeds'; the loads and probes all kept. An
    iteration count that some of the seeds lack is left out: a mean over fewer seeds would mix
    chains into one curve."""
    by_it = defaultdict(list)
    for r in rows:
        by_it[int(r["iterations"])].append(r)
    all_seeds = {seed_of(r) for r in rows}
    out = []
    for it in sorted(by_it):
        group = by_it[it]
        if {seed_of(r) for r in group} != all_seeds:
            continue
        mean = lambda key: sum(float(r[key]) for r in group) / len(group)
        out.append({"iterations": str(it), "seconds": mean("seconds"), "heldout_loglik": mean("heldout_loglik"),
                    "tokens_per_second": mean("tokens_per_second"),
                    "segment_tokens_per_second": mean("segment_tokens_per_second"),
                    "loads": [float(r["load_before"]) for r in group],
                    "probes": [float(r.get("probe_ms") or 0) for r in group]})
    return out


def point_row(name, rows, iterations):
    """A table row: "seconds → held-out" at each iteration count, then the rates, loads and probes."""
    by_it = {int(r["iterations"]): r for r in rows}
    cells = [f"{seconds(float(by_it[i]['seconds']))} → {float(by_it[i]['heldout_loglik']):.3f}" if i in by_it else ""
             for i in iterations]
    rates = [float(r["segment_tokens_per_second"]) for r in rows if float(r["segment_tokens_per_second"]) > 0]
    rate = float(rows[-1]["tokens_per_second"])
    loads = [x for r in rows for x in r["loads"]]
    probes = [x for r in rows for x in r["probes"] if x > 0]
    probe_cell = f"{min(probes):.0f}–{max(probes):.0f}" if probes else ""
    rate_cell = f"{rate / 1e6:.2f} M ({min(rates) / 1e6:.2f}–{max(rates) / 1e6:.2f})" if rates else ""
    return f"| {name} | " + " | ".join(cells) + f" | {rate_cell} | {min(loads):.2f}–{max(loads):.2f} | {probe_cell} |"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    level_iterations = [int(x) for x in sys.argv[2].split()]
    runs = defaultdict(lambda: defaultdict(list))  # (corpus, K) -> system -> rows
    with open(sys.argv[1]) as f:
        for row in csv.DictReader(f):
            runs[(row["corpus"], int(row["topics"]))][row["system"]].append(row)
    out = []
    for (corpus, K) in sorted(runs):
        systems = runs[(corpus, K)]
        names = ([s for s in ORDER if s in systems] + sorted(s for s in systems if s.startswith("ldagpu:"))
                 + sorted(s for s in systems if s not in ORDER and not s.startswith("ldagpu:")))
        iterations = sorted({int(r["iterations"]) for rows in systems.values() for r in rows})
        out.append(f"### {corpus}, K = {K}\n")
        out.append("Seconds of training → held-out log-likelihood a token, after "
                   + " / ".join(str(i) for i in iterations) + " iterations:\n")
        out.append("| system | " + " | ".join(str(i) for i in iterations) + " | tokens/s (range) | load | probe ms |")
        out.append("|---|" + "---|" * len(iterations) + "---|---|---|")
        points, means, seeds = {}, {}, {}
        for name in names:
            by_seed = defaultdict(list)
            for r in systems[name]:
                by_seed[seed_of(r)].append(r)
            seeds[name] = {sd: mean_rows(rows) for sd, rows in sorted(by_seed.items(), key=lambda x: int(x[0]))}
            means[name] = mean_rows(systems[name])
            points[name] = [(r["seconds"], r["heldout_loglik"]) for r in means[name]]
            out.append(point_row(name + (f" (mean of {len(by_seed)} seeds)" if len(by_seed) > 1 else ""),
                                 means[name], iterations))
        if any(len(seeds[n]) > 1 for n in names):
            out.append("")
            out.append("Seed by seed:\n")
            out.append("| system, seed | " + " | ".join(str(i) for i in iterations) + " | tokens/s (range) | load | probe ms |")
            out.append("|---|" + "---|" * len(iterations) + "---|---|---|")
            for name in names:
                for sd, rows in seeds[name].items():
                    out.append(point_row(f"{name}, {sd}", rows, iterations))
        ours = [n for n in names if n == "ldagpu" or n.startswith("ldagpu:")]
        peers = [n for n in names if n not in ours]
        levels = []
        for it in level_iterations:
            reached = [r["heldout_loglik"] for n in peers for r in means[n] if int(r["iterations"]) == it]
            if reached:
                levels.append((it, max(reached)))
        if levels:
            out.append("")
            out.append("Seconds to each level (the best peer's held-out figure after N iterations):\n")
            out.append("| system | " + " | ".join(f"{ll:.3f} (best peer at {it})" for it, ll in levels) + " |")
            out.append("|---|" + "---|" * len(levels))
            times = {n: [time_to(points[n], ll) for _, ll in levels] for n in names}
            for n in names:
                cells = [seconds(t) if t is not None else "not reached" for t in times[n]]
                out.append(f"| {n} | " + " | ".join(cells) + " |")
            for me in ours if peers else []:
                cells = []
                for j in range(len(levels)):
                    best = [times[n][j] for n in peers if times[n][j] is not None]
                    mine = times[me][j]
                    cells.append(f"{mine / min(best):.2f}" if best and mine is not None else "")
                out.append(f"| {me} ÷ fastest peer | " + " | ".join(cells) + " |")
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
