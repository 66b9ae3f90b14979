"""Paired differences of held-out log-likelihood a token, --start-topics N against 0 (the same
seed: the same held-out documents), mean over the seeds, and the first iterations' times.
usage: python3 summarize.py seed1-h100.txt seeds-h100.txt"""
import collections
import statistics
import sys

rows = {}
for fn in sys.argv[1:]:
    for line in open(fn):
        if '|' not in line:
            continue
        a, b = line.split('|')
        c, K, N, s = a.split()[:4]
        times = {int(k): float(v) for k, v in (x.split(':') for x in a.split()[4:])}
        heldout = {int(k): float(v) for k, v in (x.split(':') for x in b.split())}
        rows[(c, K, N, s)] = (times, heldout)
points = [50, 100, 200, 300, 400]
print('| corpus | K | N | seeds | ' + ' | '.join('Δ at %d' % p for p in points) + ' | ms, iteration 1 / 2 / 100 (N) | the same, N = 0 |')
print('|---|---|---|---|' + '---|' * len(points) + '---|---|')
for c in ('wiki43k', 'wikimix'):
    for K in ('100', '1024'):
        for N in ('8', '16'):
            seeds = [s for s in '1234' if (c, K, N, s) in rows and (c, K, '0', s) in rows]
            d = collections.defaultdict(list)
            for s in seeds:
                for it in points:
                    d[it].append(rows[(c, K, N, s)][1][it] - rows[(c, K, '0', s)][1][it])
            t = lambda n: ' / '.join('%.2f' % (1000 * statistics.mean(rows[(c, K, n, s)][0][i] for s in seeds)) for i in (1, 2, 100))
            print('| %s | %s | %s | %d | ' % (c, K, N, len(seeds)) +
                  ' | '.join('%+.4f (%+.4f … %+.4f)' % (statistics.mean(d[p]), min(d[p]), max(d[p])) for p in points) +
                  ' | %s | %s |' % (t(N), t('0')))
