#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Draws bench_airfoil_cpu's CSV (bench_airfoil_cpu --csv FILE) as a PNG: time per iteration
against threads, on log-log axes, a line per path run at several thread counts (hand-written
OpenMP, parloop's threads backend) and a level line per path run on one thread or on a device
(hand-written sequential, parloop's host, OpenCL on a CPU device: threads 0 in the CSV).

    plot_airfoil_cpu.py RESULTS.csv OUT.png [--title TEXT]

Columns: variant,threads,loop,seconds; the rows of loop "total" are whole iterations.
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # no display: the PNG only
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

COLUMNS = ["variant", "threads", "loop", "seconds"]
TOTAL = "total"


def read_totals(path):
    """{variant: [(threads, seconds per iteration)]}, variants in the order they first appear."""
    totals = {}
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            sys.exit(f"{path}: expected the columns {','.join(COLUMNS)}, got {reader.fieldnames}")
        for row in reader:
            if row["loop"] != TOTAL:
                continue
            try:
                totals.setdefault(row["variant"], []).append((int(row["threads"]), float(row["seconds"])))
            except ValueError as e:
                sys.exit(f"{path}: line {reader.line_num}: {e}")
    if not totals:
        sys.exit(f"{path}: no rows of loop '{TOTAL}'")
    return totals


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("png")
    parser.add_argument("--title", default="Airfoil on the CPU: time per iteration against threads")
    args = parser.parse_args()
    totals = read_totals(args.csv)
    counts = sorted({t for points in totals.values() for t, _ in points if t > 0})
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for variant, points in totals.items():
        points.sort()
        if len(points) > 1:
            ax.plot([t for t, _ in points], [1e3 * s for _, s in points], marker="o", label=variant)
        else:
            ax.axhline(1e3 * points[0][1], linestyle="--", linewidth=1, label=f"{variant} (one thread or a device)",
                       color="grey" if variant.startswith("hand") else None)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(counts)
    ax.set_xticklabels([str(c) for c in counts])
    ax.set_xlabel("threads")
    ax.set_ylabel("ms per iteration")
    ax.set_title(args.title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)


if __name__ == "__main__":
    main()
