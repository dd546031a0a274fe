#!/usr/bin/env python3
"""Build capsim's embedded AWS catalog (pricing-data/) from the shared data set.

Reads the CSV files of <data>/catalog/ (see <data>/README.md and PROVENANCE.md) and writes a
compact catalog into <out>/:

  instance_types.csv     one row per EC2 instance type: specs, ENI limits and Karpenter's own
                         allocatable figures (kept as test references)
  prices.csv             on-demand USD/hour per (region, type); stale=true for the 2020 table
  spot.csv               Spot Instance Advisor savings % and interruption band per (region, type)
  zones.csv              the zones capsim uses per region, with the AZ ID each one stands for
  spot_zone_factors.csv  relative spot price per zone from the 2022-05-31 per-AZ history

Python 3 standard library only. The output is deterministic: the same input gives the same
bytes on every run (rows sorted, numbers copied as text or printed with a fixed format,
LF line ends). Usage:

  python3 scripts/build_pricing_data.py [--data ../shared/data] [--out pricing-data]
"""

import argparse
import csv
import hashlib
import io
import os
import sys
from collections import defaultdict

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DATA = os.path.normpath(os.path.join(REPO, "..", "shared", "data"))
DEFAULT_OUT = os.path.join(REPO, "pricing-data")

# The 2026 us-east-1 table is current; every other price comes from the 2020 table.
CURRENT_PRICE_REGION = "us-east-1"

# Columns of the shared instance_types.csv that capsim keeps (same names, same meaning).
INSTANCE_TYPE_COLUMNS = [
    "instance_type", "family", "category", "generation", "size", "vcpu", "memory_mib", "arch",
    "cpu_manufacturer", "cpu_sustained_clock_mhz", "hypervisor", "bare_metal", "burstable",
    "capability_flex", "gpu_count", "gpu_name", "gpu_manufacturer", "gpu_memory_mib",
    "accelerator_count", "accelerator_name", "accelerator_manufacturer", "local_nvme_gib",
    "network_bandwidth_mbps", "ebs_bandwidth_mbps", "encryption_in_transit", "efa_count",
    "nvidia_gpu_resource", "amd_gpu_resource", "neuron_resource", "neuroncore_resource",
    "max_enis_default_card", "ipv4_per_eni", "max_pods_eni", "branch_enis_pod_eni",
    "karpenter_pods", "karpenter_allocatable_cpu_millicores", "karpenter_allocatable_memory_mib",
    "karpenter_ephemeral_storage_gib",
]

# Zones used for a region that has prices but no per-AZ history (every such region has at
# least three AZs).
DEFAULT_ZONE_COUNT = 3


def fail(message):
    print(f"build_pricing_data: error: {message}", file=sys.stderr)
    sys.exit(1)


def read_csv(data, name):
    path = os.path.join(data, "catalog", name)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: {e.strerror}")


def verify_manifest(data):
    """Compare the input files with the data set's MANIFEST.csv (sha256)."""
    path = os.path.join(data, "MANIFEST.csv")
    if not os.path.exists(path):
        return
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if not row["file"].startswith("catalog/"):
                continue
            with open(os.path.join(data, row["file"]), "rb") as g:
                digest = hashlib.sha256(g.read()).hexdigest()
            if digest != row["sha256"]:
                fail(f"{row['file']}: sha256 {digest} does not match MANIFEST.csv ({row['sha256']})")


def write_csv(out, name, header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    with open(os.path.join(out, name), "w", encoding="utf-8", newline="") as f:
        f.write(buf.getvalue())
    return len(rows)


def zone_letter(index):
    return "abcdefghijklmnopqrstuvwxyz"[index]


def az_id_key(az_id):
    """Sort AZ IDs by their number: use1-az2 < use1-az10."""
    prefix, _, num = az_id.rpartition("-az")
    return (prefix, int(num) if num.isdigit() else 0, az_id)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA, help="the shared data folder (default: %(default)s)")
    parser.add_argument("--out", default=DEFAULT_OUT, help="output folder (default: %(default)s)")
    args = parser.parse_args()

    verify_manifest(args.data)
    types = read_csv(args.data, "instance_types.csv")
    type_names = {r["instance_type"] for r in types}
    for col in INSTANCE_TYPE_COLUMNS:
        if col not in types[0]:
            fail(f"instance_types.csv: missing column {col}")

    # On-demand prices: us-east-1 from the 2026 table, other regions (and any us-east-1 type
    # the 2026 table lacks) from the 2020 table, flagged stale.
    prices = {}
    for r in read_csv(args.data, "prices_on_demand_us_east_1.csv"):
        if r["instance_type"] in type_names:
            prices[(r["region"], r["instance_type"])] = (r["usd_per_hour"], "false")
    for r in read_csv(args.data, "prices_on_demand_multi_region_2020.csv"):
        key = (r["region"], r["instance_type"])
        if r["instance_type"] in type_names and key not in prices:
            prices[key] = (r["usd_per_hour"], "true")
    regions = sorted({k[0] for k in prices})

    # Zones: from the AZ IDs of the per-AZ spot history, numbered in AZ-ID order and named
    # <region>a, <region>b, ...; three default zones for regions without history.
    history = read_csv(args.data, "spot_price_history_az_2022-05-31.csv")
    az_ids = defaultdict(set)
    for r in history:
        az_ids[r["region"]].add(r["az_id"])
    zones = {}  # region -> [(zone, az_id)]
    for region in regions:
        ids = sorted(az_ids.get(region, ()), key=az_id_key)
        if ids:
            zones[region] = [(f"{region}{zone_letter(i)}", az) for i, az in enumerate(ids)]
        else:
            zones[region] = [(f"{region}{zone_letter(i)}", "") for i in range(DEFAULT_ZONE_COUNT)]
    zone_of_az = {az: zone for region in regions for zone, az in zones[region] if az}

    # Spot Advisor (Linux): only (region, type) pairs that have an on-demand price, since the
    # spot estimate is on-demand x (1 - savings).
    spot = []
    for r in read_csv(args.data, "spot_advisor.csv"):
        if r["os"] != "Linux" or (r["region"], r["instance_type"]) not in prices:
            continue
        spot.append((r["region"], r["instance_type"], r["savings_pct"], r["interruption_band"]))
    spot.sort()
    spot_keys = {(s[0], s[1]) for s in spot}

    # Per-zone factors: for each (region, type) with Linux/UNIX history in two or more AZs,
    # the price in effect at the end of the window (the latest record) in each AZ divided by
    # the mean over those AZs. Zones without history for the type get no row (factor 1).
    latest = {}  # (region, type, az) -> (timestamp, price)
    for r in history:
        if r["product_description"] != "Linux/UNIX":
            continue
        key = (r["region"], r["instance_type"], r["az_id"])
        value = (r["timestamp_utc"], float(r["usd_per_hour"]))
        if key not in latest or value[0] > latest[key][0]:
            latest[key] = value
    per_type = defaultdict(list)
    for (region, itype, az), (_, price) in latest.items():
        if (region, itype) in spot_keys and az in zone_of_az and price > 0:
            per_type[(region, itype)].append((az, price))
    factors = []
    for (region, itype), items in per_type.items():
        if len(items) < 2:
            continue
        mean = sum(p for _, p in items) / len(items)
        for az, price in items:
            factors.append((region, itype, zone_of_az[az], f"{price / mean:.4f}"))
    factors.sort()

    os.makedirs(args.out, exist_ok=True)
    n_types = write_csv(args.out, "instance_types.csv", INSTANCE_TYPE_COLUMNS,
                        [[r[c] for c in INSTANCE_TYPE_COLUMNS] for r in sorted(types, key=lambda r: r["instance_type"])])
    n_prices = write_csv(args.out, "prices.csv", ["region", "instance_type", "usd_per_hour", "stale"],
                         [[k[0], k[1], v[0], v[1]] for k, v in sorted(prices.items())])
    n_spot = write_csv(args.out, "spot.csv", ["region", "instance_type", "savings_pct", "interruption_band"], spot)
    n_zones = write_csv(args.out, "zones.csv", ["region", "zone", "az_id"],
                        [[region, zone, az] for region in regions for zone, az in zones[region]])
    n_factors = write_csv(args.out, "spot_zone_factors.csv", ["region", "instance_type", "zone", "factor"], factors)
    print(f"build_pricing_data: wrote {args.out}: {n_types} instance types, {n_prices} prices "
          f"({len(regions)} regions), {n_spot} spot rows, {n_zones} zones, {n_factors} zone factors")


if __name__ == "__main__":
    main()
