#include "core/model/scenario.hpp"

namespace capsim::model {

PodSpecPtr Scenario::find_template(std::string_view name) const
{
  for (const auto& w : workloads) {
    if (w.name == name) {
      return w.spec;
    }
  }
  for (const auto& p : pods) {
    if (p.spec && p.spec->template_name == name) {
      return p.spec;
    }
  }
  return nullptr;
}

} // namespace capsim::model
