#!/usr/bin/env bash
# Installs the Debian packages capsim needs, only those that are missing.
# Usage: scripts/deps.sh [extra-package...]
set -euo pipefail

packages=(g++ cmake ninja-build libcli11-dev libyaml-cpp-dev nlohmann-json3-dev libfmt-dev catch2 python3 "$@")
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
((${#missing[@]} == 0)) && exit 0

echo "capsim: installing missing packages: ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
