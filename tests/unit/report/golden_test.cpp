// Golden outputs of every renderer for the small hand-made results in sample.hpp. A change
// here is a change of a user-visible format: review the diff, then update the golden text.
#include "core/report/json.hpp"
#include "core/report/render.hpp"
#include "sample.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::report;

TEST_CASE("table golden: one scenario, two engines", "[report][table][golden]")
{
  const std::string expected = R"GOLDEN(capsim 0.1.0 · demo · seed 42 · us-east-1 · 2h

                         karpenter  cluster-autoscaler
Cost
  total                    $1.2346             $1.5000
  on-demand                $0.8000             $1.5000
  spot                     $0.4346             $0.0000
  pool default             $1.1000             $0.0000
  pool static              $0.1346             $0.1347
  pool workers             $0.0000             $1.3653
Nodes
  peak                           4                   5
  average                     2.50                3.25
  final                          3                   4
  launched                       5                   6
  terminated                     2                   2
  node-hours                  5.25                6.50
Utilization
  cpu                        62.3%               50.0%
  memory                     41.0%               45.0%
Pods
  total                         20                  20
  scheduled                     19                  20
  pending p50                 3.5s               1m35s
  pending p95                42.2s               2m10s
  pending max                1m15s               1h06m
  unschedulable                  1                   0
  evicted                        2                   0
Disruptions
  emptiness                      1                   0
  consolidation delete           1                   0
  consolidation replace          0                   0
  expiration                     0                   0
  drift                          0                   0
  spot interruption              0                   0
  scale-down                     0                   2
Lower bound
  cost lower bound         $0.9000             $0.9000
  efficiency                 72.9%               60.0%
warning: cluster-autoscaler: node group "workers" reached maxSize
)GOLDEN";
  CHECK(render(testing::sample_run(), Format::table, {}) == expected);
}

TEST_CASE("table golden: timeline and decision log follow the summary", "[report][table][golden]")
{
  const std::string expected = R"GOLDEN(capsim 0.1.0 · demo · seed 42 · us-east-1 · 2h

                         karpenter  cluster-autoscaler
Cost
  total                    $1.2346             $1.5000
  on-demand                $0.8000             $1.5000
  spot                     $0.4346             $0.0000
  pool default             $1.1000             $0.0000
  pool static              $0.1346             $0.1347
  pool workers             $0.0000             $1.3653
Nodes
  peak                           4                   5
  average                     2.50                3.25
  final                          3                   4
  launched                       5                   6
  terminated                     2                   2
  node-hours                  5.25                6.50
Utilization
  cpu                        62.3%               50.0%
  memory                     41.0%               45.0%
Pods
  total                         20                  20
  scheduled                     19                  20
  pending p50                 3.5s               1m35s
  pending p95                42.2s               2m10s
  pending max                1m15s               1h06m
  unschedulable                  1                   0
  evicted                        2                   0
Disruptions
  emptiness                      1                   0
  consolidation delete           1                   0
  consolidation replace          0                   0
  expiration                     0                   0
  drift                          0                   0
  spot interruption              0                   0
  scale-down                     0                   2
Lower bound
  cost lower bound         $0.9000             $0.9000
  efficiency                 72.9%               60.0%
warning: cluster-autoscaler: node group "workers" reached maxSize

Timeline: karpenter
  t      nodes      $/h     cost  pending  cpu req  cpu alloc  mem req  mem alloc
  0s         2  $0.2000  $0.0000        0     1.50       3.86    2.0Gi     14.0Gi
  30m        3  $0.3000  $0.2500        3     1.75       5.79    3.0Gi     21.0Gi
  1h         4  $0.4000  $0.5000        0     2.00       7.72    4.0Gi     28.0Gi
  1h30m      2  $0.2000  $0.7500        0     2.25       3.86    5.0Gi     14.0Gi
  2h         3  $0.3000  $1.0000        0     2.50       5.79    6.0Gi     21.0Gi

Timeline: cluster-autoscaler
  t      nodes      $/h     cost  pending  cpu req  cpu alloc  mem req  mem alloc
  0s         3  $0.5760  $0.0000        0     1.50       5.79    2.0Gi     21.0Gi
  30m        4  $0.7680  $0.2500        3     1.75       7.72    3.0Gi     28.0Gi
  1h         3  $0.5760  $0.5000        0     2.00       5.79    4.0Gi     21.0Gi
  1h30m      4  $0.7680  $0.7500        0     2.25       7.72    5.0Gi     28.0Gi
  2h         3  $0.5760  $1.0000        0     2.50       5.79    6.0Gi     21.0Gi

Decisions: karpenter
  t      method       action   candidate  detail                     saving/h
  15m    emptiness    delete   node-3     empty for 30s               $0.0960
  1h15m  single-node  replace  node-4     m5.large -> t3.medium <x>   $0.0500
)GOLDEN";
  CHECK(render(testing::sample_run_with_timeline(), Format::table, {}) == expected);
}

TEST_CASE("table golden: compare with deltas against the first design", "[report][table][golden][compare]")
{
  const std::string expected = R"GOLDEN(capsim 0.1.0 · compare a, b · seed 42 · us-east-1 · 2h

                               a        b  Δ vs a
Cost
  total                  $1.2346  $1.3000  ▲ +5.3%
  effective total        $1.2346  $1.2346
  on-demand              $0.8000  $0.8000
  spot                   $0.4346  $0.4346
  pool default           $1.1000  $1.1000
  pool static            $0.1346  $0.1346
Nodes
  peak                         4        3  ▼ -25.0%
  average                   2.50     2.50
  final                        3        3
  launched                     5        5
  terminated                   2        2
  node-hours                5.25     5.25
Utilization
  cpu                      62.3%    70.0%  ▲ +7.7 pp
  memory                   41.0%    41.0%
Pods
  total                       20       20
  scheduled                   19       19
  pending p50               3.5s     3.5s
  pending p95              42.2s    42.2s
  pending max              1m15s    1m15s
  unschedulable                1        1
  evicted                      2        2
Disruptions
  emptiness                    1        1
  consolidation delete         1        1
  consolidation replace        0        0
  expiration                   0        0
  drift                        0        0
  spot interruption            0        0
  scale-down                   0        0
Lower bound
  cost lower bound       $0.9000  $0.9000
  efficiency               72.9%    72.9%
)GOLDEN";
  CHECK(render(testing::sample_comparison(), Format::table, {true, false}) == expected);
}

TEST_CASE("markdown golden: one scenario", "[report][markdown][golden]")
{
  const std::string expected = R"GOLDEN(### capsim: demo

seed 42 · us-east-1 · 2h · capsim 0.1.0

| metric | karpenter | cluster-autoscaler |
|:--|--:|--:|
| **Cost** | | |
| total | $1.2346 | $1.5000 |
| on-demand | $0.8000 | $1.5000 |
| spot | $0.4346 | $0.0000 |
| pool default | $1.1000 | $0.0000 |
| pool static | $0.1346 | $0.1347 |
| pool workers | $0.0000 | $1.3653 |
| **Nodes** | | |
| peak | 4 | 5 |
| average | 2.50 | 3.25 |
| final | 3 | 4 |
| launched | 5 | 6 |
| terminated | 2 | 2 |
| node-hours | 5.25 | 6.50 |
| **Utilization** | | |
| cpu | 62.3% | 50.0% |
| memory | 41.0% | 45.0% |
| **Pods** | | |
| total | 20 | 20 |
| scheduled | 19 | 20 |
| pending p50 | 3.5s | 1m35s |
| pending p95 | 42.2s | 2m10s |
| pending max | 1m15s | 1h06m |
| unschedulable | 1 | 0 |
| evicted | 2 | 0 |
| **Disruptions** | | |
| emptiness | 1 | 0 |
| consolidation delete | 1 | 0 |
| consolidation replace | 0 | 0 |
| expiration | 0 | 0 |
| drift | 0 | 0 |
| spot interruption | 0 | 0 |
| scale-down | 0 | 2 |
| **Lower bound** | | |
| cost lower bound | $0.9000 | $0.9000 |
| efficiency | 72.9% | 60.0% |

- ⚠️ cluster-autoscaler: node group "workers" reached maxSize
)GOLDEN";
  CHECK(render(testing::sample_run(), Format::markdown, {}) == expected);
}

TEST_CASE("markdown golden: compare, worse deltas in bold", "[report][markdown][golden][compare]")
{
  const std::string expected = R"GOLDEN(### capsim compare: a, b

seed 42 · us-east-1 · 2h · capsim 0.1.0

| metric | a | b |
|:--|--:|--:|
| **Cost** | | |
| total | $1.2346 | $1.3000 **▲ +5.3%** |
| effective total | $1.2346 | $1.2346 |
| on-demand | $0.8000 | $0.8000 |
| spot | $0.4346 | $0.4346 |
| pool default | $1.1000 | $1.1000 |
| pool static | $0.1346 | $0.1346 |
| **Nodes** | | |
| peak | 4 | 3 ▼ -25.0% |
| average | 2.50 | 2.50 |
| final | 3 | 3 |
| launched | 5 | 5 |
| terminated | 2 | 2 |
| node-hours | 5.25 | 5.25 |
| **Utilization** | | |
| cpu | 62.3% | 70.0% ▲ +7.7 pp |
| memory | 41.0% | 41.0% |
| **Pods** | | |
| total | 20 | 20 |
| scheduled | 19 | 19 |
| pending p50 | 3.5s | 3.5s |
| pending p95 | 42.2s | 42.2s |
| pending max | 1m15s | 1m15s |
| unschedulable | 1 | 1 |
| evicted | 2 | 2 |
| **Disruptions** | | |
| emptiness | 1 | 1 |
| consolidation delete | 1 | 1 |
| consolidation replace | 0 | 0 |
| expiration | 0 | 0 |
| drift | 0 | 0 |
| spot interruption | 0 | 0 |
| scale-down | 0 | 0 |
| **Lower bound** | | |
| cost lower bound | $0.9000 | $0.9000 |
| efficiency | 72.9% | 72.9% |

Deltas are against **a**; worse changes are in bold.
)GOLDEN";
  CHECK(render(testing::sample_comparison(), Format::markdown, {true, false}) == expected);
}

TEST_CASE("csv golden: a row per engine", "[report][csv][golden]")
{
  const std::string expected = R"GOLDEN(design,engine,total_usd,on_demand_usd,spot_usd,cost_pool_default_usd,cost_pool_static_usd,cost_pool_workers_usd,nodes_peak,nodes_average,nodes_final,nodes_launched,nodes_terminated,node_hours,utilization_cpu,utilization_memory,pods_total,pods_scheduled,pending_p50_s,pending_p95_s,pending_max_s,pods_unschedulable,pods_evicted,disruptions_emptiness,disruptions_consolidation_delete,disruptions_consolidation_replace,disruptions_expiration,disruptions_drift,disruptions_spot_interruption,disruptions_scale_down,lower_bound_usd,efficiency
demo,karpenter,1.234568,0.8,0.434568,1.1,0.134568,0,4,2.5,3,5,2,5.25,0.6234,0.41,20,19,3.5,42.25,75,1,2,1,1,0,0,0,0,0,0.9,0.729
demo,cluster-autoscaler,1.5,1.5,0,0,0.1347,1.3653,5,3.25,4,6,2,6.5,0.5,0.45,20,20,95,130,4000,0,0,0,0,0,0,0,0,2,0.9,0.6
)GOLDEN";
  CHECK(render(testing::sample_run(), Format::csv, {}) == expected);
}

TEST_CASE("csv golden: with timeline rows, the time series", "[report][csv][golden]")
{
  const std::string expected = R"GOLDEN(design,engine,t_s,nodes,cost_per_hour,cost_cumulative_usd,pending,cpu_requested_millis,cpu_allocatable_millis,memory_requested_bytes,memory_allocatable_bytes
demo,karpenter,0,2,0.2,0,0,1500,3860,2147483648,15032385536
demo,karpenter,1800,3,0.3,0.25,3,1750,5790,3221225472,22548578304
demo,karpenter,3600,4,0.4,0.5,0,2000,7720,4294967296,30064771072
demo,karpenter,5400,2,0.2,0.75,0,2250,3860,5368709120,15032385536
demo,karpenter,7200,3,0.3,1,0,2500,5790,6442450944,22548578304
demo,cluster-autoscaler,0,3,0.576,0,0,1500,5790,2147483648,22548578304
demo,cluster-autoscaler,1800,4,0.768,0.25,3,1750,7720,3221225472,30064771072
demo,cluster-autoscaler,3600,3,0.576,0.5,0,2000,5790,4294967296,22548578304
demo,cluster-autoscaler,5400,4,0.768,0.75,0,2250,7720,5368709120,30064771072
demo,cluster-autoscaler,7200,3,0.576,1,0,2500,5790,6442450944,22548578304
)GOLDEN";
  CHECK(render(testing::sample_run_with_timeline(), Format::csv, {}) == expected);
}

TEST_CASE("json golden: SPEC 7 keys in order, fixed numbers", "[report][json][golden]")
{
  const std::string expected = R"GOLDEN({
  "capsim": {"version": "0.1.0"},
  "scenario": "demo",
  "seed": 42,
  "region": "us-east-1",
  "duration_s": 7200,
  "results": [
    {
      "engine": "karpenter",
      "cost": {"total_usd": 1.234568, "on_demand_usd": 0.8, "spot_usd": 0.434568, "by_pool": {"default": 1.1, "static": 0.134568}, "effective_total_usd": 1.234568},
      "nodes": {"launched": 5, "terminated": 2, "peak": 4, "average": 2.5, "final": 3, "node_hours": 5.25},
      "pods": {"total": 20, "scheduled": 19, "unschedulable": 1, "evicted": 2, "pending_p50_s": 3.5, "pending_p95_s": 42.25, "pending_max_s": 75, "lost": 0},
      "utilization": {"cpu": 0.6234, "memory": 0.41},
      "disruptions": {"emptiness": 1, "consolidation_delete": 1, "consolidation_replace": 0, "expiration": 0, "drift": 0, "spot_interruption": 0, "scale_down": 0},
      "lower_bound": {"total_usd": 0.9, "efficiency": 0.729},
      "final_nodes": [
        {"name": "node-1", "instance_type": "m5.large", "zone": "us-east-1a", "capacity_type": "on-demand", "pool": "default", "price_per_hour": 0.096, "pods": 4},
        {"name": "node-2", "instance_type": "m5.large", "zone": "us-east-1b", "capacity_type": "spot", "pool": "default", "price_per_hour": 0.0373, "pods": 3},
        {"name": "static-0", "instance_type": "t3.medium", "zone": "us-east-1a", "capacity_type": "on-demand", "pool": "static", "price_per_hour": 0.0416, "pods": 0}
      ]
    },
    {
      "engine": "cluster-autoscaler",
      "cost": {"total_usd": 1.5, "on_demand_usd": 1.5, "spot_usd": 0, "by_pool": {"static": 0.1347, "workers": 1.3653}, "effective_total_usd": 1.5},
      "nodes": {"launched": 6, "terminated": 2, "peak": 5, "average": 3.25, "final": 4, "node_hours": 6.5},
      "pods": {"total": 20, "scheduled": 20, "unschedulable": 0, "evicted": 0, "pending_p50_s": 95, "pending_p95_s": 130, "pending_max_s": 4000, "lost": 0},
      "utilization": {"cpu": 0.5, "memory": 0.45},
      "disruptions": {"emptiness": 0, "consolidation_delete": 0, "consolidation_replace": 0, "expiration": 0, "drift": 0, "spot_interruption": 0, "scale_down": 2},
      "lower_bound": {"total_usd": 0.9, "efficiency": 0.6},
      "final_nodes": [
        {"name": "cas-0", "instance_type": "m5.xlarge", "zone": "us-east-1a", "capacity_type": "on-demand", "pool": "workers", "price_per_hour": 0.192, "pods": 20}
      ],
      "warnings": [
        "node group \"workers\" reached maxSize"
      ]
    }
  ]
}
)GOLDEN";
  CHECK(render(testing::sample_run(), Format::json, {}) == expected);
}

TEST_CASE("json golden: timeline and decisions when present", "[report][json][golden]")
{
  const std::string expected = R"GOLDEN({
  "capsim": {"version": "0.1.0"},
  "scenario": "demo",
  "seed": 42,
  "region": "us-east-1",
  "duration_s": 7200,
  "results": [
    {
      "engine": "karpenter",
      "cost": {"total_usd": 1.234568, "on_demand_usd": 0.8, "spot_usd": 0.434568, "by_pool": {"default": 1.1, "static": 0.134568}, "effective_total_usd": 1.234568},
      "nodes": {"launched": 5, "terminated": 2, "peak": 4, "average": 2.5, "final": 3, "node_hours": 5.25},
      "pods": {"total": 20, "scheduled": 19, "unschedulable": 1, "evicted": 2, "pending_p50_s": 3.5, "pending_p95_s": 42.25, "pending_max_s": 75, "lost": 0},
      "utilization": {"cpu": 0.6234, "memory": 0.41},
      "disruptions": {"emptiness": 1, "consolidation_delete": 1, "consolidation_replace": 0, "expiration": 0, "drift": 0, "spot_interruption": 0, "scale_down": 0},
      "lower_bound": {"total_usd": 0.9, "efficiency": 0.729},
      "final_nodes": [
        {"name": "node-1", "instance_type": "m5.large", "zone": "us-east-1a", "capacity_type": "on-demand", "pool": "default", "price_per_hour": 0.096, "pods": 4},
        {"name": "node-2", "instance_type": "m5.large", "zone": "us-east-1b", "capacity_type": "spot", "pool": "default", "price_per_hour": 0.0373, "pods": 3},
        {"name": "static-0", "instance_type": "t3.medium", "zone": "us-east-1a", "capacity_type": "on-demand", "pool": "static", "price_per_hour": 0.0416, "pods": 0}
      ],
      "timeline": [
        {"t_s": 0, "nodes": 2, "cost_per_hour": 0.2, "cost_cumulative_usd": 0, "pending": 0, "cpu_requested_millis": 1500, "cpu_allocatable_millis": 3860, "memory_requested_bytes": 2147483648, "memory_allocatable_bytes": 15032385536, "nodes_by_type": {"m5.large": 1, "t3.medium": 1}},
        {"t_s": 1800, "nodes": 3, "cost_per_hour": 0.3, "cost_cumulative_usd": 0.25, "pending": 3, "cpu_requested_millis": 1750, "cpu_allocatable_millis": 5790, "memory_requested_bytes": 3221225472, "memory_allocatable_bytes": 22548578304, "nodes_by_type": {"m5.large": 2, "t3.medium": 1}},
        {"t_s": 3600, "nodes": 4, "cost_per_hour": 0.4, "cost_cumulative_usd": 0.5, "pending": 0, "cpu_requested_millis": 2000, "cpu_allocatable_millis": 7720, "memory_requested_bytes": 4294967296, "memory_allocatable_bytes": 30064771072, "nodes_by_type": {"m5.large": 3, "t3.medium": 1}},
        {"t_s": 5400, "nodes": 2, "cost_per_hour": 0.2, "cost_cumulative_usd": 0.75, "pending": 0, "cpu_requested_millis": 2250, "cpu_allocatable_millis": 3860, "memory_requested_bytes": 5368709120, "memory_allocatable_bytes": 15032385536, "nodes_by_type": {"m5.large": 1, "t3.medium": 1}},
        {"t_s": 7200, "nodes": 3, "cost_per_hour": 0.3, "cost_cumulative_usd": 1, "pending": 0, "cpu_requested_millis": 2500, "cpu_allocatable_millis": 5790, "memory_requested_bytes": 6442450944, "memory_allocatable_bytes": 22548578304, "nodes_by_type": {"m5.large": 2, "t3.medium": 1}}
      ],
      "decisions": [
        {"t_s": 900, "method": "emptiness", "action": "delete", "candidate": "node-3", "detail": "empty for 30s", "saving_per_hour": 0.096},
        {"t_s": 4500, "method": "single-node", "action": "replace", "candidate": "node-4", "detail": "m5.large -> t3.medium <x>", "saving_per_hour": 0.05}
      ]
    },
    {
      "engine": "cluster-autoscaler",
      "cost": {"total_usd": 1.5, "on_demand_usd": 1.5, "spot_usd": 0, "by_pool": {"static": 0.1347, "workers": 1.3653}, "effective_total_usd": 1.5},
      "nodes": {"launched": 6, "terminated": 2, "peak": 5, "average": 3.25, "final": 4, "node_hours": 6.5},
      "pods": {"total": 20, "scheduled": 20, "unschedulable": 0, "evicted": 0, "pending_p50_s": 95, "pending_p95_s": 130, "pending_max_s": 4000, "lost": 0},
      "utilization": {"cpu": 0.5, "memory": 0.45},
      "disruptions": {"emptiness": 0, "consolidation_delete": 0, "consolidation_replace": 0, "expiration": 0, "drift": 0, "spot_interruption": 0, "scale_down": 2},
      "lower_bound": {"total_usd": 0.9, "efficiency": 0.6},
      "final_nodes": [
        {"name": "cas-0", "instance_type": "m5.xlarge", "zone": "us-east-1a", "capacity_type": "on-demand", "pool": "workers", "price_per_hour": 0.192, "pods": 20}
      ],
      "warnings": [
        "node group \"workers\" reached maxSize"
      ],
      "timeline": [
        {"t_s": 0, "nodes": 3, "cost_per_hour": 0.576, "cost_cumulative_usd": 0, "pending": 0, "cpu_requested_millis": 1500, "cpu_allocatable_millis": 5790, "memory_requested_bytes": 2147483648, "memory_allocatable_bytes": 22548578304, "nodes_by_type": {"m5.xlarge": 2, "t3.medium": 1}},
        {"t_s": 1800, "nodes": 4, "cost_per_hour": 0.768, "cost_cumulative_usd": 0.25, "pending": 3, "cpu_requested_millis": 1750, "cpu_allocatable_millis": 7720, "memory_requested_bytes": 3221225472, "memory_allocatable_bytes": 30064771072, "nodes_by_type": {"m5.xlarge": 3, "t3.medium": 1}},
        {"t_s": 3600, "nodes": 3, "cost_per_hour": 0.576, "cost_cumulative_usd": 0.5, "pending": 0, "cpu_requested_millis": 2000, "cpu_allocatable_millis": 5790, "memory_requested_bytes": 4294967296, "memory_allocatable_bytes": 22548578304, "nodes_by_type": {"m5.xlarge": 2, "t3.medium": 1}},
        {"t_s": 5400, "nodes": 4, "cost_per_hour": 0.768, "cost_cumulative_usd": 0.75, "pending": 0, "cpu_requested_millis": 2250, "cpu_allocatable_millis": 7720, "memory_requested_bytes": 5368709120, "memory_allocatable_bytes": 30064771072, "nodes_by_type": {"m5.xlarge": 3, "t3.medium": 1}},
        {"t_s": 7200, "nodes": 3, "cost_per_hour": 0.576, "cost_cumulative_usd": 1, "pending": 0, "cpu_requested_millis": 2500, "cpu_allocatable_millis": 5790, "memory_requested_bytes": 6442450944, "memory_allocatable_bytes": 22548578304, "nodes_by_type": {"m5.xlarge": 2, "t3.medium": 1}}
      ]
    }
  ]
}
)GOLDEN";
  CHECK(render_json(testing::sample_run_with_timeline()) == expected);
}

TEST_CASE("json golden: compare has designs and deltas", "[report][json][golden][compare]")
{
  const std::string expected = R"GOLDEN({
  "capsim": {"version": "0.1.0"},
  "designs": [
    {
      "design": "a",
      "scenario": "demo",
      "seed": 42,
      "region": "us-east-1",
      "duration_s": 7200,
      "results": [
        {
          "engine": "karpenter",
          "cost": {"total_usd": 1.234568, "on_demand_usd": 0.8, "spot_usd": 0.434568, "by_pool": {"default": 1.1, "static": 0.134568}, "effective_total_usd": 1.234568},
          "nodes": {"launched": 5, "terminated": 2, "peak": 4, "average": 2.5, "final": 3, "node_hours": 5.25},
          "pods": {"total": 20, "scheduled": 19, "unschedulable": 1, "evicted": 2, "pending_p50_s": 3.5, "pending_p95_s": 42.25, "pending_max_s": 75, "lost": 0},
          "utilization": {"cpu": 0.6234, "memory": 0.41},
          "disruptions": {"emptiness": 1, "consolidation_delete": 1, "consolidation_replace": 0, "expiration": 0, "drift": 0, "spot_interruption": 0, "scale_down": 0},
          "lower_bound": {"total_usd": 0.9, "efficiency": 0.729},
          "final_nodes": [
            {"name": "node-1", "instance_type": "m5.large", "zone": "us-east-1a", "capacity_type": "on-demand", "pool": "default", "price_per_hour": 0.096, "pods": 4},
            {"name": "node-2", "instance_type": "m5.large", "zone": "us-east-1b", "capacity_type": "spot", "pool": "default", "price_per_hour": 0.0373, "pods": 3},
            {"name": "static-0", "instance_type": "t3.medium", "zone": "us-east-1a", "capacity_type": "on-demand", "pool": "static", "price_per_hour": 0.0416, "pods": 0}
          ]
        }
      ]
    },
    {
      "design": "b",
      "scenario": "demo",
      "seed": 42,
      "region": "us-east-1",
      "duration_s": 7200,
      "results": [
        {
          "engine": "karpenter",
          "cost": {"total_usd": 1.3, "on_demand_usd": 0.8, "spot_usd": 0.434568, "by_pool": {"default": 1.1, "static": 0.134568}, "effective_total_usd": 1.234568},
          "nodes": {"launched": 5, "terminated": 2, "peak": 3, "average": 2.5, "final": 3, "node_hours": 5.25},
          "pods": {"total": 20, "scheduled": 19, "unschedulable": 1, "evicted": 2, "pending_p50_s": 3.5, "pending_p95_s": 42.25, "pending_max_s": 75, "lost": 0},
          "utilization": {"cpu": 0.7, "memory": 0.41},
          "disruptions": {"emptiness": 1, "consolidation_delete": 1, "consolidation_replace": 0, "expiration": 0, "drift": 0, "spot_interruption": 0, "scale_down": 0},
          "lower_bound": {"total_usd": 0.9, "efficiency": 0.729},
          "final_nodes": [
            {"name": "node-1", "instance_type": "m5.large", "zone": "us-east-1a", "capacity_type": "on-demand", "pool": "default", "price_per_hour": 0.096, "pods": 4},
            {"name": "node-2", "instance_type": "m5.large", "zone": "us-east-1b", "capacity_type": "spot", "pool": "default", "price_per_hour": 0.0373, "pods": 3},
            {"name": "static-0", "instance_type": "t3.medium", "zone": "us-east-1a", "capacity_type": "on-demand", "pool": "static", "price_per_hour": 0.0416, "pods": 0}
          ]
        }
      ]
    }
  ],
  "deltas": [
    {
      "column": "b",
      "baseline": "a",
      "metrics": {
        "total_usd": {"value": 1.3, "delta": 0.065432, "relative": 0.053},
        "effective_total_usd": {"value": 1.234568, "delta": 0, "relative": 0},
        "on_demand_usd": {"value": 0.8, "delta": 0, "relative": 0},
        "spot_usd": {"value": 0.434568, "delta": 0, "relative": 0},
        "cost_pool_default_usd": {"value": 1.1, "delta": 0, "relative": 0},
        "cost_pool_static_usd": {"value": 0.134568, "delta": 0, "relative": 0},
        "nodes_peak": {"value": 3, "delta": -1, "relative": -0.25},
        "nodes_average": {"value": 2.5, "delta": 0, "relative": 0},
        "nodes_final": {"value": 3, "delta": 0, "relative": 0},
        "nodes_launched": {"value": 5, "delta": 0, "relative": 0},
        "nodes_terminated": {"value": 2, "delta": 0, "relative": 0},
        "node_hours": {"value": 5.25, "delta": 0, "relative": 0},
        "utilization_cpu": {"value": 0.7, "delta": 0.0766, "relative": null},
        "utilization_memory": {"value": 0.41, "delta": 0, "relative": null},
        "pods_total": {"value": 20, "delta": 0, "relative": 0},
        "pods_scheduled": {"value": 19, "delta": 0, "relative": 0},
        "pending_p50_s": {"value": 3.5, "delta": 0, "relative": 0},
        "pending_p95_s": {"value": 42.25, "delta": 0, "relative": 0},
        "pending_max_s": {"value": 75, "delta": 0, "relative": 0},
        "pods_unschedulable": {"value": 1, "delta": 0, "relative": 0},
        "pods_evicted": {"value": 2, "delta": 0, "relative": 0},
        "disruptions_emptiness": {"value": 1, "delta": 0, "relative": 0},
        "disruptions_consolidation_delete": {"value": 1, "delta": 0, "relative": 0},
        "disruptions_consolidation_replace": {"value": 0, "delta": 0, "relative": null},
        "disruptions_expiration": {"value": 0, "delta": 0, "relative": null},
        "disruptions_drift": {"value": 0, "delta": 0, "relative": null},
        "disruptions_spot_interruption": {"value": 0, "delta": 0, "relative": null},
        "disruptions_scale_down": {"value": 0, "delta": 0, "relative": null},
        "lower_bound_usd": {"value": 0.9, "delta": 0, "relative": 0},
        "efficiency": {"value": 0.729, "delta": 0, "relative": null}
      }
    }
  ]
}
)GOLDEN";
  CHECK(render(testing::sample_comparison(), Format::json, {true, false}) == expected);
}

TEST_CASE("bound output in every format", "[report][bound][golden]")
{
  const auto run = testing::sample_run();
  CHECK(render_bound(run, Format::table) == R"(capsim 0.1.0 · demo · seed 42 · us-east-1 · 2h

engine              lower bound  total cost  efficiency
karpenter               $0.9000     $1.2346       72.9%
cluster-autoscaler      $0.9000     $1.5000       60.0%

The lower bound integrates, over time, the cheapest fractional cover of the running pods'
summed requests by the instance types they may use: no real packing can cost less.
)");
  CHECK(render_bound(run, Format::json) == R"({
  "capsim": {"version": "0.1.0"},
  "scenario": "demo",
  "seed": 42,
  "region": "us-east-1",
  "duration_s": 7200,
  "bounds": [
    {"engine": "karpenter", "lower_bound_usd": 0.9, "total_usd": 1.234568, "efficiency": 0.729},
    {"engine": "cluster-autoscaler", "lower_bound_usd": 0.9, "total_usd": 1.5, "efficiency": 0.6}
  ]
}
)");
  CHECK(render_bound(run, Format::csv) == "engine,lower_bound_usd,total_usd,efficiency\n"
                                          "karpenter,0.9,1.234568,0.729\ncluster-autoscaler,0.9,1.5,0.6\n");
  CHECK(render_bound(run, Format::markdown) == "| engine | lower bound | total cost | efficiency |\n|:--|--:|--:|--:|\n"
                                               "| karpenter | $0.9000 | $1.2346 | 72.9% |\n"
                                               "| cluster-autoscaler | $0.9000 | $1.5000 | 60.0% |\n");
}
