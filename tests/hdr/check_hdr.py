"""Checks soapbench's HdrHistogram export against the real libraries.

Usage: check_hdr.py RESULTS.json EXPORT.hlog HGRM_DIR [JAVA_HGRM_DIR]

- Python: every interval of the .hlog decodes with the `hdrhistogram` package
  (hdrh), with the count of soapbench's histogram, and its value at each
  percentile matches soapbench's at the same rank within the histograms'
  precision (soapbench's bins are under 1% wide, HdrHistogram's 0.1%).
- Java (when JAVA_HGRM_DIR is given): HistogramLogProcessor's .hgrm of each tag
  (it decoded the .hlog) says what soapbench's own .hgrm says, line for line.
Exit 0 when all hold; 1 with one line per problem otherwise.
"""
import base64
import json
import math
import os
import sys

from hdrh.histogram import HdrHistogram

LOWER, UPPER, BINS = 1e-6, 60.0, 1801
PERCENTILES = [0, 10, 50, 90, 99, 99.9, 100]


def soapbench_value(hist, rank):
    """soapbench's value at a rank: the geometric midpoint of the bin holding it,
    clamped to [min, max] (core/histogram.h); rank 1 and rank count are exact."""
    if rank <= 1:
        return hist["min"]
    if rank >= hist["count"]:
        return hist["max"]
    seen = 0
    width = math.log(UPPER / LOWER) / BINS
    for index, count in hist["bins"]:
        seen += count
        if seen >= rank:
            if index < 0:
                return hist["min"]
            if index >= BINS:
                return hist["max"]
            mid = LOWER * math.exp((index + 0.5) * width)
            return min(max(mid, hist["min"]), hist["max"])
    return hist["max"]


def histograms_of(results):
    """tag -> soapbench histogram JSON, named as `soapbench export` names them."""
    out = {}
    for op in results["operations"]:
        for s, step in enumerate(op["steps"], 1):
            stem = f"{op['operation']}.s{s}.c{step['clients']}"
            for series, key in (("latency", "latency"), ("uncorrected", "uncorrected"), ("send_lag", "send_lag")):
                if step.get(key) is not None:
                    out[f"{stem}.{series}"] = step[key]
    return out


def hlog_intervals(path):
    """tag -> base64 histogram of each interval line."""
    out = {}
    for line in open(path):
        if line.startswith("#") or line.startswith('"') or not line.strip():
            continue
        assert line.startswith("Tag="), line
        fields = line.strip().split(",")
        out[fields[0][4:]] = fields[4]
    return out


def hgrm_lines(path):
    """(value, percentile, total count) of each distribution line, then the footer lines."""
    rows, footer = [], []
    for line in open(path):
        parts = line.split()
        if line.startswith("#["):
            # HistogramLogProcessor puts its range and StartTime first; the
            # distribution's own footer is Mean, Max and Buckets.
            if line.startswith(("#[Mean", "#[Max", "#[Buckets")):
                footer.append(" ".join(parts))
        elif len(parts) >= 3 and parts[0] != "Value":
            rows.append((float(parts[0]), float(parts[1]), int(parts[2])))
    return rows, footer


def main():
    results = json.load(open(sys.argv[1]))
    hists = histograms_of(results)
    intervals = hlog_intervals(sys.argv[2])
    problems = []
    if set(hists) != set(intervals):
        problems.append(f"tags differ: results {sorted(hists)} vs hlog {sorted(intervals)}")
    checked = 0
    for tag, encoded in sorted(intervals.items()):
        ours = hists.get(tag)
        if ours is None:
            continue
        hdr = HdrHistogram.decode(encoded)
        if hdr.get_total_count() != ours["count"]:
            problems.append(f"{tag}: hdrh counts {hdr.get_total_count()}, soapbench {ours['count']}")
            continue
        n = ours["count"]
        for p in PERCENTILES:
            got = hdr.get_value_at_percentile(p) / 1e9  # ns -> s
            # HdrHistogram's rank: p/100 x n rounded half up, at least 1.
            rank = max(1, int(p / 100.0 * n + 0.5))
            want = soapbench_value(ours, rank)
            tolerance = max(want * 0.011, 2e-9)  # 1% bins + 0.1% sub-buckets; 2 ns of rounding
            if abs(got - want) > tolerance:
                problems.append(f"{tag}: p{p} hdrh {got * 1e3:.6f} ms, soapbench {want * 1e3:.6f} ms (rank {rank} of {n})")
            checked += 1
        # Our own summary at soapbench's nearest rank: this script reads the bins as soapbench does.
        summary = {"latency": "latency_summary_ms", "uncorrected": "uncorrected_summary_ms",
                   "send_lag": "send_lag_summary_ms"}[tag.rsplit(".", 1)[1]]
        step_summary = None
        for op in results["operations"]:
            for s, step in enumerate(op["steps"], 1):
                if tag.startswith(f"{op['operation']}.s{s}.c{step['clients']}."):
                    step_summary = step.get(summary)
        if step_summary and n > 0:
            for p, key in ((50, "p50"), (99, "p99")):
                mine = soapbench_value(ours, max(1, math.ceil(p / 100.0 * n))) * 1e3
                if abs(mine - step_summary[key]) > 1e-9 + 1e-9 * abs(mine):
                    problems.append(f"{tag}: this script reads p{p} {mine} ms, soapbench wrote {step_summary[key]} ms")
    if len(sys.argv) > 4:
        for tag in sorted(intervals):
            java = os.path.join(sys.argv[4], tag + ".hgrm")
            own = os.path.join(sys.argv[3], tag + ".hgrm")
            if not os.path.exists(java):
                problems.append(f"{tag}: HistogramLogProcessor wrote no {java}")
                continue
            java_rows, java_footer = hgrm_lines(java)
            own_rows, own_footer = hgrm_lines(own)
            if java_rows != own_rows:
                first = next((i for i, (a, b) in enumerate(zip(java_rows, own_rows)) if a != b), min(len(java_rows), len(own_rows)))
                problems.append(f"{tag}: .hgrm lines differ from line {first}: Java "
                                f"{java_rows[first:first + 1]} ({len(java_rows)} lines), soapbench "
                                f"{own_rows[first:first + 1]} ({len(own_rows)} lines)")
            if java_footer != own_footer:
                problems.append(f"{tag}: .hgrm footers differ: Java {java_footer}, soapbench {own_footer}")
            checked += 1
    for p in problems:
        print(p)
    print(f"{checked} checks, {len(problems)} problems")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
