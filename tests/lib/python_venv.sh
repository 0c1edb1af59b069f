# Sourced by the tests that use Python packages from PyPI (tests/hdr, tests/junit):
# python_venv DIR REQUIREMENTS makes a venv in DIR with the pinned REQUIREMENTS,
# once per build tree and again when the requirements change.
python_venv() {
  local venv=$1 requirements=$2
  if ! cmp -s "$requirements" "$venv/requirements.txt" 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r "$requirements"
    cp "$requirements" "$venv/requirements.txt"
  fi
}
