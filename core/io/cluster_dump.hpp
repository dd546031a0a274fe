#pragma once

#include "core/base/units.hpp"
#include "core/model/scenario.hpp"

#include <map>
#include <string>
#include <vector>

namespace capsim::io {

// Reads a live cluster as kubectl prints it, for `capsim preview` (docs/preview.md): the output
// of `kubectl get nodes -o json`, `kubectl get pods -A -o json`, `kubectl get nodepools -o yaml`
// and optionally `kubectl get pdb -A -o json`, `kubectl get ec2nodeclasses -o yaml` and
// `kubectl get pvc,pv,storageclass -A -o json` (the claims that pin pods to their volumes' zones).
//
// Each file is checked on its own first (binary/UTF-8/nesting guards, YAML/JSON syntax, and
// that every object is of the kind the option expects), so errors name the file the user gave:
// "FILE:LINE:COL: error: ...". The objects then go through the scenario reader (scenario_yaml)
// with its usual rules, with the leniency real dumps need and a scenario must not have:
//  - no capsim/v1 Scenario document is needed (one is synthesised; region from the nodes'
//    topology.kubernetes.io/region label, default us-east-1);
//  - nodes labelled eks.amazonaws.com/nodegroup get a synthesised capsim/v1 NodeGroup (their
//    instance types, minSize 0) so the Cluster Autoscaler view can consider them;
//  - pods owned by a Node (static/mirror pods) or carrying kubernetes.io/config.mirror are
//    marked as DaemonSet-like node pods (they follow their node and are never rescheduled);
//  - DaemonSets are rebuilt from the DaemonSet-owned pods (one per owner, the DaemonSet
//    controller's per-node matchFields affinity removed) so new nodes get their overhead;
//  - Succeeded/Failed pods are dropped (the scenario reader already does).
// Timestamps (creation, start, scheduling, node Ready transitions, heartbeats) are kept per
// object in Unix milliseconds.

// Which file holds what.
struct ClusterDumpFiles
{
  std::string nodes;       // required
  std::string pods;        // required
  std::string node_pools;  // required
  std::string pdbs;        // optional
  std::string node_classes; // optional
  std::string volumes;      // optional
};

struct DumpNodeFacts
{
  SimTime created = -1;     // metadata.creationTimestamp
  SimTime ready_since = -1; // Ready condition lastTransitionTime when Ready is True
  bool ready = true;        // Ready condition True (or no conditions at all)
  bool deleting = false;    // metadata.deletionTimestamp set
  // Drift hashes Karpenter copied from the NodeClaim at registration (annotations
  // karpenter.sh/nodepool-hash(-version), karpenter.k8s.aws/ec2nodeclass-hash(-version)) and
  // the EC2NodeClass named by the karpenter.k8s.aws/ec2nodeclass label; "" when absent.
  std::string node_pool_hash;
  std::string node_pool_hash_version;
  std::string node_class;
  std::string node_class_hash;
  std::string node_class_hash_version;
};

// A NodePool's or EC2NodeClass's current drift hash (its own hash annotations).
struct DumpHash
{
  std::string hash;
  std::string version;
};

struct DumpPodFacts
{
  SimTime created = -1;   // metadata.creationTimestamp
  SimTime started = -1;   // status.startTime
  SimTime scheduled = -1; // PodScheduled condition lastTransitionTime
  bool deleting = false;  // metadata.deletionTimestamp set
  SimTime deletion = -1;  // metadata.deletionTimestamp
  bool node_pod = false;  // static or mirror pod (owned by its Node)
  bool finished = false;  // phase Succeeded or Failed
  bool unready = false;   // its Ready condition is False
  std::string node_name;  // spec.nodeName
  std::string daemon_set; // owning DaemonSet name, "" when none
};

struct ClusterDump
{
  model::Scenario scenario; // nodes, pods (namespaced), NodePools, PDBs, NodeClasses, NodeGroups
  std::map<std::string, DumpNodeFacts> nodes; // by node name
  std::map<std::string, DumpPodFacts> pods;   // by "namespace/name"
  std::map<std::string, DumpHash> node_pool_hashes;  // by NodePool name
  std::map<std::string, DumpHash> node_class_hashes; // by EC2NodeClass name
  SimTime newest = -1; // the newest timestamp anywhere in the dump (heartbeats included)
  std::vector<std::string> warnings; // what the lenient reading left out or reinterpreted
};

// Reads the files. Throws InputError (exit 2) for unreadable, malformed or wrong-kind input.
[[nodiscard]] ClusterDump load_cluster_dump(const ClusterDumpFiles& files);

// The key of a pod in ClusterDump::pods.
[[nodiscard]] inline std::string pod_key(const std::string& namespace_, const std::string& name)
{
  return namespace_ + "/" + name;
}

} // namespace capsim::io
