#!/usr/bin/env bash
# Must still work: python3 runs a script from the project, imports the standard library, writes
# a file and uses a venv-free module search path from the project.
. "$(dirname "$0")/../lib/tap.sh"

cat > "$T_PROJECT/helper.py" <<'PY'
def answer():
    return 42
PY
cat > "$T_PROJECT/main.py" <<'PY'
import json, sqlite3, hashlib, helper
db = sqlite3.connect("data.db")
db.execute("create table t (x)")
db.execute("insert into t values (?)", (helper.answer(),))
db.commit()
print(json.dumps({"x": db.execute("select x from t").fetchone()[0],
                  "sha": hashlib.sha256(b"cordon").hexdigest()[:8]}))
PY

plan 3
run_sandboxed python3 main.py
check "the script runs" "0:{\"x\": 42, \"sha\": \"$(printf cordon | sha256sum | cut -c1-8)\"}" "$rc:$out"
check "the database it wrote is on the host" "yes" "$([ -s "$T_PROJECT/data.db" ] && echo yes)"
run_sandboxed python3 -c 'import sys; sys.exit(5)'
check "python's exit status comes through" "5" "$rc"
