# Sourced by bin/run and bin/test: make sure .venv exists and has quotaweb installed with the
# extra named in $1 ("dev" or "test"), every package at the version constraints.txt pins. The
# install is skipped when neither pyproject.toml nor constraints.txt has changed since the last
# successful one (a stamp file inside .venv remembers their hash).
ensure_venv() {
  local extra="$1"
  if [ ! -x .venv/bin/python ]; then
    local python="${PYTHON:-}"
    if [ -z "$python" ]; then
      for candidate in python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1; then python="$candidate"; break; fi
      done
    fi
    if [ -z "$python" ]; then
      echo "error: no python3.11 or python3 on PATH (set PYTHON=/path/to/python3.11)" >&2
      return 1
    fi
    echo "Creating .venv with $python ..."
    "$python" -m venv .venv
  fi
  local stamp=".venv/.quotaweb-installed-$extra"
  local want
  want=$(.venv/bin/python -c 'import hashlib; print(hashlib.sha256(b"".join(open(f, "rb").read() for f in ("pyproject.toml", "constraints.txt"))).hexdigest())')
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "Installing quotaweb[$extra] into .venv ..."
    .venv/bin/python -m pip install -qq --disable-pip-version-check -c constraints.txt -e ".[$extra]"
    echo "$want" > "$stamp"
  fi
}
