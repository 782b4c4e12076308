#!/usr/bin/env bash
# The image layer cache for action.yml: where modellint keeps it, and the
# key it is saved under. Written to $GITHUB_OUTPUT (or stdout):
#
#   bash scripts/action-cache.sh dir   # dir=, modellint's default --cache-dir
#   bash scripts/action-cache.sh key   # key=, from the images the run read
#
# The key hashes images.txt, which modellint writes into the cache
# directory: the digests of the images a run read. It changes only when the
# images do, so a run on the same images saves nothing new; a run on other
# images saves a new entry, and the next job restores the newest entry
# whose key starts with MODELLINT_CACHE_PREFIX. Empty when no image was
# read: there is nothing worth saving.
set -euo pipefail

prefix=${MODELLINT_CACHE_PREFIX:-modellint-}

# cache_dir is os.UserCacheDir()/modellint, as modellint computes it.
cache_dir() {
  case "$(uname -s)" in
    Darwin) echo "$HOME/Library/Caches/modellint" ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) echo "${LOCALAPPDATA:?}/modellint" ;;
    *) echo "${XDG_CACHE_HOME:-$HOME/.cache}/modellint" ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

output() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "$1" >>"$GITHUB_OUTPUT"
  else
    echo "$1"
  fi
}

case "${1:-}" in
  dir)
    output "dir=$(cache_dir)"
    ;;
  key)
    images="$(cache_dir)/images.txt"
    if [ -s "$images" ]; then
      echo "modellint cache: images read:"
      sed 's/^/  /' "$images"
      output "key=$prefix$(sha256 "$images")"
    else
      echo "modellint cache: no image was read; nothing to save"
      output "key="
    fi
    ;;
  *)
    echo "usage: action-cache.sh dir|key" >&2
    exit 2
    ;;
esac
