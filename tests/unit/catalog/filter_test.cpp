#include "core/catalog/filter.hpp"
#include "core/catalog/load.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::catalog;

namespace {

std::string where_error(std::string_view text)
{
  try {
    (void)parse_where(text, {"--where"});
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string nodepool_error(std::string_view yaml)
{
  try {
    (void)parse_nodepool_requirements(yaml, "np.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::string> names_matching(const Catalog& c, const model::Requirements& reqs)
{
  std::vector<std::string> out;
  for (const auto& it : c.instance_types()) {
    if (matches(it, reqs)) {
      out.push_back(it.name);
    }
  }
  return out;
}

} // namespace

TEST_CASE("catalog --where expressions", "[catalog][filter]")
{
  const auto in = parse_where("karpenter.k8s.aws/instance-family In m5, c6i", {"--where"});
  CHECK(in.key == "karpenter.k8s.aws/instance-family");
  CHECK(in.op() == model::Operator::in);
  CHECK(in.values == std::vector<std::string>{"c6i", "m5"});
  const auto gt = parse_where("  karpenter.k8s.aws/instance-cpu   Gt 4 ", {"--where"});
  CHECK(gt.op() == model::Operator::gt);
  CHECK(gt.greater_than == 4);
  CHECK(parse_where("karpenter.k8s.aws/instance-gpu-name Exists", {"--where"}).op() == model::Operator::exists);
  CHECK(parse_where("karpenter.k8s.aws/instance-gpu-name DoesNotExist", {"--where"}).op()
        == model::Operator::does_not_exist);
  CHECK(parse_where("kubernetes.io/arch NotIn arm64", {"--where"}).op() == model::Operator::not_in);

  CHECK(where_error("karpenter.k8s.aws/instance-family") ==
        "--where: error: 'karpenter.k8s.aws/instance-family' is not a requirement (expected 'KEY OPERATOR "
        "[V1,V2,...]', e.g. 'karpenter.k8s.aws/instance-family In m5,c6i')");
  CHECK(where_error("k Inn a") ==
        "--where: error: unknown operator 'Inn' (did you mean 'In'?) (expected one of In, NotIn, Exists, "
        "DoesNotExist, Gt, Lt, Gte, Lte)");
  CHECK(where_error("k In") == "--where: error: In needs at least one value (expected e.g. 'k In v1,v2')");
  CHECK(where_error("k Gt four") == "--where: error: Gt needs exactly one integer value (expected e.g. 'k Gt 4')");
  CHECK(where_error("k Gt 1,2") == "--where: error: Gt needs exactly one integer value (expected e.g. 'k Gt 4')");
  CHECK(where_error("k Exists x") == "--where: error: Exists takes no values (expected 'k Exists')");
  CHECK(where_error("k In a,,b") == "--where: error: empty value in 'a,,b' (expected comma-separated values)");
}

TEST_CASE("NodePool requirements from YAML", "[catalog][filter]")
{
  const auto reqs = parse_nodepool_requirements(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements:
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m", "r"]
          minValues: 2
        - key: karpenter.k8s.aws/instance-generation
          operator: Gt
          values: ["5"]
        - key: kubernetes.io/arch
          operator: In
          values: [arm64]
)",
                                                "np.yaml");
  REQUIRE(reqs.items().size() == 3);
  const auto* cat = reqs.find("karpenter.k8s.aws/instance-category");
  REQUIRE(cat != nullptr);
  CHECK(cat->values == std::vector<std::string>{"c", "m", "r"});
  CHECK(cat->min_values == 2);
  CHECK(reqs.find("karpenter.k8s.aws/instance-generation")->greater_than == 5);

  // Other documents are skipped; the NodePool is found by kind.
  const auto second = parse_nodepool_requirements(
      "kind: EC2NodeClass\nspec: {}\n---\nkind: NodePool\nspec:\n  template:\n    spec:\n      requirements: []\n",
      "np.yaml");
  CHECK(second.items().empty());

  CHECK(nodepool_error("kind: Deployment\n") == "np.yaml: error: no NodePool found (expected a document with kind: NodePool)");
  CHECK(nodepool_error("kind: NodePool\nspec:\n  template:\n    spec:\n      requirements:\n        - key: a\n          "
                       "operator: Inn\n          values: [x]\n")
        == "np.yaml:7:21: error: unknown operator 'Inn' (did you mean 'In'?) (expected one of In, NotIn, Exists, "
           "DoesNotExist, Gt, Lt, Gte, Lte)");
  CHECK(nodepool_error("kind: NodePool\nspec:\n  template:\n    spec:\n      requirements:\n        - key: a\n          "
                       "operator: In\n          value: [x]\n")
        .find("np.yaml:8:11: error: unknown field 'value' (did you mean 'values'?)") == 0);
  CHECK(nodepool_error("kind: NodePool\nspec: [\n").find("np.yaml:") == 0);
}

TEST_CASE("matching types like a NodePool", "[catalog][filter]")
{
  const auto c = load_catalog("us-east-1");
  model::Requirements m5;
  m5.add(parse_where("karpenter.k8s.aws/instance-family In m5", {"--where"}));
  const auto names = names_matching(c, m5);
  CHECK(names == std::vector<std::string>{"m5.12xlarge", "m5.16xlarge", "m5.24xlarge", "m5.2xlarge", "m5.4xlarge",
                                          "m5.8xlarge", "m5.large", "m5.metal", "m5.xlarge"});
  m5.add(parse_where("karpenter.k8s.aws/instance-cpu Gt 16", {"--where"}));
  CHECK(names_matching(c, m5)
        == std::vector<std::string>{"m5.12xlarge", "m5.16xlarge", "m5.24xlarge", "m5.8xlarge", "m5.metal"});

  // Keys a type does not define do not constrain it (Karpenter's Intersects), but absent
  // well-known AWS keys are DoesNotExist on the type.
  model::Requirements gpu;
  gpu.add(parse_where("karpenter.k8s.aws/instance-gpu-count Gt 0", {"--where"}));
  gpu.add(parse_where("karpenter.k8s.aws/instance-family In m5,g5", {"--where"}));
  const auto gpus = names_matching(c, gpu);
  CHECK(std::find(gpus.begin(), gpus.end(), "g5.xlarge") != gpus.end());
  CHECK(std::find(gpus.begin(), gpus.end(), "m5.large") == gpus.end());
  model::Requirements no_gpu;
  no_gpu.add(parse_where("karpenter.k8s.aws/instance-gpu-name NotIn a10g", {"--where"}));
  no_gpu.add(parse_where("karpenter.k8s.aws/instance-family In m5,g5", {"--where"}));
  const auto cpus = names_matching(c, no_gpu);
  CHECK(std::find(cpus.begin(), cpus.end(), "m5.large") != cpus.end());
  CHECK(std::find(cpus.begin(), cpus.end(), "g5.xlarge") == cpus.end());

  // Zone and capacity type select offerings.
  model::Requirements spot_1a;
  spot_1a.add(parse_where("karpenter.sh/capacity-type In spot", {"--where"}));
  spot_1a.add(parse_where("topology.kubernetes.io/zone In us-east-1a", {"--where"}));
  const auto& m5x = *c.find("m5.xlarge");
  const auto offs = compatible_offerings(m5x, spot_1a);
  REQUIRE(offs.size() == 1);
  CHECK(offs[0].zone == "us-east-1a");
  CHECK(offs[0].capacity_type == "spot");
  CHECK(offs[0].price_per_hour == 0.067088);
}
