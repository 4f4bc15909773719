#!/usr/bin/env bash
# --receipt: the receipt replaces its target by rename once complete (a new inode; a hard link
# to the old file keeps the old contents; no temporary file is left), a symlink at the target is
# replaced rather than written through, a path the sandbox could write (the project) is refused
# before anything runs, and a run that fails while its policy is being built still gets a
# receipt saying why. Control: the same receipt outside the project is written.
. "$(dirname "$0")/../lib/tap.sh"

run() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@"); }
# FIELD FILE EXPR: EXPR evaluated on the receipt's JSON object r.
field() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
out_dir=$T_TMP/receipts
mkdir -p "$out_dir"

plan 13
run --receipt "$out_dir/r.json" -- sh -c 'exit 3'
check "control: a receipt outside the project is written, with the exit status" "3:3" \
        "$?:$(field "$out_dir/r.json" 'r["outcome"]["exit_status"]')"

echo old >"$out_dir/r.json"
ln "$out_dir/r.json" "$out_dir/old-link"
inode=$(stat -c %i "$out_dir/r.json")
run --receipt "$out_dir/r.json" -- true
check "an existing receipt is replaced by a new file (rename), not rewritten in place" "0:new" \
        "$?:$([ "$(stat -c %i "$out_dir/r.json")" != "$inode" ] && echo new || echo same)"
check "... a hard link to the old one still has the old contents" "old" "$(cat "$out_dir/old-link")"
check "... the new one is the whole receipt" "0" "$(field "$out_dir/r.json" 'r["outcome"]["exit_status"]')"
check "... and no temporary file is left next to it" "old-link r.json" \
        "$(find "$out_dir" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ' | sed 's/ $//')"

echo keep >"$T_TMP/target"
ln -s "$T_TMP/target" "$out_dir/link.json"
run --receipt "$out_dir/link.json" -- true
check "a symlink at the receipt path is replaced, its target left alone" "0:keep:file" \
        "$?:$(cat "$T_TMP/target"):$([ -f "$out_dir/link.json" ] && [ ! -L "$out_dir/link.json" ] && echo file)"

run --receipt "$T_PROJECT/r.json" -- touch "$T_PROJECT/ran" 2>"$T_TMP/err"
check "a receipt in the project (writable inside): refused (125)" \
        "125:cordon: --receipt '$T_PROJECT/r.json' lies in '$T_PROJECT', which the sandbox can write: it could replace the file, or plant a symlink there for cordon to write through; choose a path outside the sandbox's writable directories" \
        "$?:$(cat "$T_TMP/err")"
check "... before anything ran, and nothing was written there" "absent absent" \
        "$([ -e "$T_PROJECT/ran" ] && echo ran || echo absent) $([ -e "$T_PROJECT/r.json" ] && echo written || echo absent)"
mkdir -p "$T_PROJECT/sub"
run --receipt "$T_PROJECT/sub/../sub/r.json" -- true 2>/dev/null
check "... also by a path with .. in it" "125" "$?"

run --rw "$T_TMP/does-not-exist" --receipt "$out_dir/err.json" -- true 2>"$T_TMP/err"
check "a run that fails while its policy is built: 125" "125" "$?"
check "... still gets a receipt with the error and errno, and nulls for what was never decided" \
        "EXTRA_WRITABLE_PATHS entry '$T_TMP/does-not-exist' (from --rw): No such file or directory 2 None None" \
        "$(field "$out_dir/err.json" '" ".join(map(str, (r["outcome"]["error"], r["outcome"]["errno"], r["backend"], r["layers"])))')"

# The message names a path that is not UTF-8: JSON cannot hold it, the errno still counts.
run --rw "$T_TMP/"$'\xff'"-missing" --receipt "$out_dir/bytes.json" -- true 2>/dev/null
check "... also when its message is not UTF-8: the error null, the errno kept" "125 None 2" \
        "$? $(field "$out_dir/bytes.json" '" ".join(map(str, (r["outcome"]["error"], r["outcome"]["errno"])))')"

run --receipt "$T_TMP/no-such-dir/r.json" -- touch "$T_PROJECT/ran2" 2>"$T_TMP/err"
check "a receipt in a directory that does not exist: refused (125) before anything ran" \
        "125:cordon: --receipt '$T_TMP/no-such-dir/r.json': No such file or directory:absent" \
        "$?:$(cat "$T_TMP/err"):$([ -e "$T_PROJECT/ran2" ] && echo ran || echo absent)"
