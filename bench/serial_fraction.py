#!/usr/bin/env python3
"""Issue 27 §3: the serial fraction of a fit, per stage, from `perf script` samples.

  serial_fraction.py PERF_SCRIPT_TXT BENCH_FIT_JSON [BUCKET_MS]

PERF_SCRIPT_TXT is `perf script -F tid,time,ip,sym,dso` of `perf record -F 999 bench_fit ...`;
BENCH_FIT_JSON the bench_fit line (its load_ms and stages_ms place the stages on the timeline:
they follow one another after the load, in the order bench_fit reports them). Per stage:
  - work samples per thread (libgomp's samples are its threads waiting: spin, not work);
  - serial: buckets of BUCKET_MS (default 20) in which the main thread worked and no other did,
    as a share of the stage's buckets and of the whole fit;
  - imbalance: (main work − the others' mean) / main work, the serial share a balanced pass predicts.
"""
import collections
import json
import sys

perf_txt, fit_json = sys.argv[1], sys.argv[2]
bucket = (float(sys.argv[3]) if len(sys.argv) > 3 else 20.0) / 1000.0
fit = json.loads([l for l in open(fit_json) if l.startswith('{')][-1])

samples = []  # (tid, seconds, symbol, dso)
for line in open(perf_txt):
    p = line.split()
    if len(p) >= 4:
        samples.append((int(p[0]), float(p[1].rstrip(':')), ' '.join(p[3:-1]), p[-1]))
start = min(s[1] for s in samples)
main = samples[0][0]

stages, t = [], fit['load_ms'] / 1000.0
for name, ms in fit['stages_ms'].items():
    stages.append((name, t, t + ms / 1000.0))
    t += ms / 1000.0
fit_end = t

def stage_of(x):
    for name, a, b in stages:
        if a <= x < b:
            return name
    return None

work = collections.defaultdict(collections.Counter)  # stage -> tid -> work samples
spin = collections.defaultdict(collections.Counter)
buckets = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))  # stage -> bucket -> tid
serial_symbols = collections.Counter()
symbols = collections.defaultdict(collections.Counter)
for tid, time, sym, dso in samples:
    x = time - start
    st = stage_of(x)
    if st is None:
        continue
    if 'libgomp' in dso:
        spin[st][tid] += 1
        continue
    work[st][tid] += 1
    buckets[st][int(x / bucket)][tid] += 1
    if tid == main:
        symbols[int(x / bucket)][sym[:60]] += 1

def bucket_count(a, b):
    return int(b / bucket) - int(a / bucket) + 1


fit_buckets = sum(bucket_count(a, b) for _, a, b in stages)
total_serial = 0
print(f"# fit {fit_end - fit['load_ms'] / 1000.0:.2f} s after a {fit['load_ms'] / 1000.0:.2f} s load; "
      f"threads {fit.get('threads')}; buckets of {bucket * 1000:.0f} ms")
print(f"{'stage':15s} {'wall s':>7s} {'main work':>9s} {'others':>7s} {'spin':>6s} {'serial':>7s} {'of fit':>7s} {'imbalance':>9s}")
for name, a, b in stages:
    n = bucket_count(a, b)
    serial = 0
    for k, per in buckets[name].items():
        if per[main] > 0 and sum(v for tid, v in per.items() if tid != main) == 0:
            serial += 1
            serial_symbols.update(symbols[k])
    total_serial += serial
    m = work[name][main]
    others = [v for tid, v in work[name].items() if tid != main]
    mean_other = sum(others) / max(1, len(others)) if others else 0.0
    imbalance = (m - mean_other) / m if m else 0.0
    print(f"{name:15s} {b - a:7.2f} {m:9d} {sum(others):7d} {sum(spin[name].values()):6d} "
          f"{100.0 * serial / n:6.1f}% {100.0 * serial / fit_buckets:6.1f}% {100.0 * imbalance:8.1f}%")
print(f"serial buckets in the fit: {total_serial} of {fit_buckets} ({100.0 * total_serial / fit_buckets:.1f}%)")
print("main thread's work in serial buckets, by symbol:")
for sym, c in serial_symbols.most_common(12):
    print(f"  {c:6d}  {sym}")
