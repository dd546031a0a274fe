#pragma once

#include "core/io/yaml_reader.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace capsim::io {

// One document of a scenario stream as `--set` addresses it: `Kind/name.field...`.
struct DocumentRef
{
  std::string kind;
  std::string name;
  YAML::Node root;
};

// Applies `--set PATH=VALUE` overrides (SPEC §6) to the parsed YAML documents, before they are
// converted, so every field is settable and validated like the file itself. PATH is
// `Kind/name.a.b.c` (`Scenario.spec.duration`, `NodePool/default.spec.disruption.consolidateAfter`,
// `Deployment/web.spec.replicas`); the name may be left out when the stream has one document of
// that kind. Segments are mapping keys, `[N]` (or `.N`) list indices, or `[key.with.dots]`.
// VALUE is YAML (`2h`, `30`, `[a, b]`, `{nodes: "20%"}`); empty means null (the default).
// Missing mapping keys are created; the reader then reports a created key that the schema does
// not know as "path ... does not exist (did you mean ...?)", located at the --set. Problems that
// stop an override (no such document, index out of range, a value where a mapping is needed,
// invalid YAML) are errors at the --set too.
void apply_set_overrides(std::vector<DocumentRef>& documents, const std::vector<std::string>& sets,
                         YamlReader& reader);

// Splits "PATH=VALUE" at the first '='; InputError when there is none or PATH is empty.
struct SetOverride
{
  std::string path;
  std::string value;
};
[[nodiscard]] SetOverride parse_set_override(std::string_view text);

} // namespace capsim::io
