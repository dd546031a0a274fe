#!/usr/bin/env python3
"""A synthetic `kubectl get pods -A -o json` dump for scripts/bench.sh (bench/RESULTS.md).

PODS pods of DEPLOYMENTS Deployments (their ReplicaSets own the pods) arrive uniformly over a
week; 90% are deleted after a lognormal time (median ~30 min), the rest run to the end. Every
fifth Deployment spreads its pods over zones (ScheduleAnyway), every seventh prefers hostname
anti-affinity among its own pods. Deterministic for given arguments.

    bench/kubectl_dump.py PODS DEPLOYMENTS OUT
"""
import datetime
import json
import random
import sys


def main():
    pods, deployments, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(1)
    start = datetime.datetime(2026, 11, 1, tzinfo=datetime.timezone.utc)
    shapes = [("250m", "512Mi"), ("500m", "1Gi"), ("1", "2Gi"), ("1", "4Gi"), ("2", "4Gi"), ("2", "8Gi"),
              ("4", "8Gi")]

    def stamp(t):
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")

    items = []
    for i in range(pods):
        d = rng.randrange(deployments)
        cpu, memory = shapes[d % len(shapes)]
        created = start + datetime.timedelta(seconds=rng.uniform(0, 7 * 86400))
        metadata = {
            "name": f"dep{d}-h{d}-{i}",
            "namespace": f"ns{d % 20}",
            "labels": {"app": f"dep{d}", "pod-template-hash": f"h{d}"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"dep{d}-h{d}",
                                 "controller": True, "uid": f"u{d}"}],
            "creationTimestamp": stamp(created),
        }
        if rng.random() < 0.9:
            metadata["deletionTimestamp"] = stamp(created + datetime.timedelta(seconds=rng.lognormvariate(7.5, 1)))
        spec = {"containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}
        selector = {"matchLabels": {"app": f"dep{d}"}}
        if d % 5 == 0:
            spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                  "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": selector}]
        if d % 7 == 0:
            spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname", "labelSelector": selector}}]}}
        items.append({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec,
                      "status": {"phase": "Running"}})
    with open(out, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f, indent=1)


if __name__ == "__main__":
    main()
