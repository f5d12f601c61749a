# shellcheck shell=bash
# Sourced by bin/tessera, bin/test and .ci/run. Makes a Node >= 22 and a pinned pnpm
# available on PATH without touching the system's Node: when the node on PATH is too old
# (machines here ship Node 20), both are installed from the npm registry into
# <repo>/.tools, which is git-ignored and private to this checkout.
TESSERA_NODE_VERSION="24.21.0"
TESSERA_PNPM_VERSION="10.34.9"
TESSERA_MIN_NODE_MAJOR=22

tessera_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tessera_tools="$tessera_root/.tools"

_tessera_node_major() {
  "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

_tessera_install_tools() {
  local what=("$@")
  echo "tessera: installing ${what[*]} into .tools (one time, from the npm registry)" >&2
  mkdir -p "$tessera_tools"
  [ -f "$tessera_tools/package.json" ] || echo '{"name":"tessera-tools","private":true}' >"$tessera_tools/package.json"
  # The system npm only downloads; nothing outside .tools is written.
  npm install --prefix "$tessera_tools" --no-audit --no-fund --loglevel=error "${what[@]}" >&2 ||
    { echo "tessera: could not install ${what[*]} from the npm registry" >&2; return 1; }
}

tessera_ensure_toolchain() {
  local want=()
  local sys_node
  sys_node="$(command -v node || true)"
  if [ -x "$tessera_tools/node_modules/.bin/node" ] &&
    [ "$(_tessera_node_major "$tessera_tools/node_modules/.bin/node")" -ge "$TESSERA_MIN_NODE_MAJOR" ]; then
    :
  elif [ -n "$sys_node" ] && [ "$(_tessera_node_major "$sys_node")" -ge "$TESSERA_MIN_NODE_MAJOR" ]; then
    :
  else
    want+=("node@$TESSERA_NODE_VERSION")
  fi
  if [ ! -x "$tessera_tools/node_modules/.bin/pnpm" ]; then
    want+=("pnpm@$TESSERA_PNPM_VERSION")
  fi
  if [ ${#want[@]} -gt 0 ]; then
    _tessera_install_tools "${want[@]}" || return 1
  fi
  export PATH="$tessera_tools/node_modules/.bin:$PATH"
  # Turbo must not phone home; this machine has no network but the npm registry.
  export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
  local major
  major="$(_tessera_node_major node)"
  if [ "$major" -lt "$TESSERA_MIN_NODE_MAJOR" ]; then
    echo "tessera: needs Node >= $TESSERA_MIN_NODE_MAJOR, found $(node --version 2>/dev/null || echo none)" >&2
    return 1
  fi
}

# Installs workspace dependencies when the lockfile changed since the last install.
tessera_ensure_deps() {
  local stamp="$tessera_root/node_modules/.tessera-installed"
  if [ ! -f "$stamp" ] || [ "$tessera_root/pnpm-lock.yaml" -nt "$stamp" ] || [ "$tessera_root/package.json" -nt "$stamp" ]; then
    (cd "$tessera_root" && pnpm install --frozen-lockfile --reporter=append-only >&2) || return 1
    touch "$stamp"
  fi
}

# Builds the packages when any source, manifest or tsconfig is newer than the last build.
tessera_ensure_build() {
  local stamp="$tessera_root/node_modules/.tessera-built"
  if [ ! -f "$stamp" ] || [ -n "$(find "$tessera_root/packages" -path '*/node_modules' -prune -o \
    \( -path '*/src/*' -o -name 'package.json' -o -name 'tsconfig*.json' \) -newer "$stamp" -print -quit)" ]; then
    (cd "$tessera_root" && pnpm turbo run build --output-logs=errors-only >&2) || return 1
    touch "$stamp"
  fi
}
