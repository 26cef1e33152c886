#!/usr/bin/env bash
# Installs the Debian 12 packages asyncsim needs to build, test and plot. Idempotent: packages
# already present are not fetched again. Needs root (or sudo).
set -euo pipefail
packages=(build-essential cmake ninja-build ccache libgtest-dev libgmock-dev libbenchmark-dev
          libyaml-cpp-dev libcli11-dev libfmt-dev nlohmann-json3-dev
          python3 python3-numpy python3-matplotlib python3-pytest)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
