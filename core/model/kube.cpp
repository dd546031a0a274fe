#include "core/model/kube.hpp"

#include <algorithm>

namespace capsim::model {

bool Toleration::tolerates(const Taint& taint) const
{
  if (effect && *effect != taint.effect) {
    return false;
  }
  if (key.empty()) {
    return op_exists;
  }
  if (key != taint.key) {
    return false;
  }
  return op_exists || value == taint.value;
}

bool tolerates_all(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints,
                   bool tolerate_prefer_no_schedule)
{
  for (const auto& taint : taints) {
    if (tolerate_prefer_no_schedule && taint.effect == TaintEffect::prefer_no_schedule) {
      continue;
    }
    const bool ok = std::any_of(tolerations.begin(), tolerations.end(),
                                [&](const Toleration& t) { return t.tolerates(taint); });
    if (!ok) {
      return false;
    }
  }
  return true;
}

std::optional<TaintEffect> parse_taint_effect(std::string_view text)
{
  if (text == "NoSchedule") {
    return TaintEffect::no_schedule;
  }
  if (text == "PreferNoSchedule") {
    return TaintEffect::prefer_no_schedule;
  }
  if (text == "NoExecute") {
    return TaintEffect::no_execute;
  }
  return std::nullopt;
}

std::string_view to_string(TaintEffect effect)
{
  switch (effect) {
  case TaintEffect::no_schedule: return "NoSchedule";
  case TaintEffect::prefer_no_schedule: return "PreferNoSchedule";
  case TaintEffect::no_execute: return "NoExecute";
  }
  return "?";
}

bool LabelSelector::matches(const Labels& labels) const
{
  for (const auto& [k, v] : match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) {
      return false;
    }
  }
  for (const auto& e : match_expressions) {
    auto it = labels.find(e.key);
    const bool present = it != labels.end();
    const bool listed = present && std::find(e.values.begin(), e.values.end(), it->second) != e.values.end();
    switch (e.op) {
    case Operator::in:
      if (!listed) {
        return false;
      }
      break;
    case Operator::not_in:
      if (listed) {
        return false;
      }
      break;
    case Operator::exists:
      if (!present) {
        return false;
      }
      break;
    case Operator::does_not_exist:
      if (present) {
        return false;
      }
      break;
    default:
      return false;
    }
  }
  return true;
}

} // namespace capsim::model
