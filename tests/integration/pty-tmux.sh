#!/usr/bin/env bash
# An interactive session driven through tmux, as a user at a terminal would: the sandbox gets a
# pseudo-terminal of its own, so the prompt, job control, ^C/^Z/^\, window resizes and full-screen
# programs work, the user's terminal mode comes back on every exit path, and TIOCSTI from inside
# reaches only the sandbox's own terminal, never the user's shell; escape sequences that read or
# change the user's terminal (clipboard, title, queries) are filtered, and modes the sandbox left
# on are turned off when it ends.
. "$(dirname "$0")/../lib/tap.sh"

plan 24

sock=$T_TMP/tmux.sock
T() { tmux -S "$sock" "$@"; }
screen() { T capture-pane -p -J -S -200 2>/dev/null; }
# wait_for REGEX [SECONDS]: until the pane shows a line matching REGEX (grep -E). 1 on timeout.
wait_for() {
        local i n=$((${2:-15} * 10))
        for ((i = 0; i < n; i++)); do
                screen | grep -Eq -- "$1" && return 0
                sleep 0.1
        done
        return 1
}
# type LINE: types LINE and Enter into the pane.
type_line() { T send-keys -l -- "$1" && T send-keys Enter; }
# mark: sets $m to a fresh word to wait for, so an old line on the screen never matches.
n_mark=0
mark() { n_mark=$((n_mark + 1)); m="M${n_mark}X"; }
# outer CMD: runs CMD in the outer shell and waits for it to finish; $got is what it printed
# between its start and end markers (without \r).
outer() {
        local m; mark
        type_line "echo ${m}a; $1; echo ${m}b"
        if wait_for "^${m}b\$" "${2:-20}"; then
                got=$(screen | tr -d '\r' | sed -n "/^${m}a\$/,/^${m}b\$/p" | sed '1d;$d')
        else
                got="(timed out; screen: $(screen | tail -5 | tr '\n' '|'))"
        fi
}

# The outer shell: a plain bash with a known prompt, the test's environment inherited.
export PS1='OUTER$ ' CORDON T_PROJECT T_TMP
trap 'T kill-server 2>/dev/null' EXIT
T new-session -d -x 100 -y 30 "cd '$T_PROJECT' && exec bash --norc --noprofile"
T set-option -g history-limit 5000 >/dev/null
wait_for '[$#] ?$' || echo "# the outer shell did not start: $(screen)"
type_line "PS1='OUTER\$ '"
wait_for '^OUTER\$' || echo "# the outer shell did not take its prompt: $(screen)"
outer 'stty -g > "$T_TMP/stty.before"'

# 1. A shell inside: its prompt, and the terminal it got is a terminal.
type_line "\"\$CORDON\" run -q --setenv PS1='INNER> ' -- bash --norc --noprofile -i; echo \"outer-rc=\$?\""
if wait_for '^INNER> ' 20; then ok "bash's prompt appears inside"; else
        not_ok "bash's prompt appears inside" "$(screen | tail -5)"; fi
mark
type_line "test -t 0 && test -t 1 && test -t 2 && echo ${m}-tty; t=\$(tty) && test -c \"\$t\" && echo ${m}-name; case \$(ps -o stat= -p \$\$) in *+*) echo ${m}-fg;; esac"
wait_for "^${m}-fg" 5
check "fds 0..2 are a terminal that tty names inside, and the shell is in the foreground" \
        "${m}-tty ${m}-name ${m}-fg" "$(screen | tr -d '\r' | grep -E "^${m}-(tty|name|fg)\$" | tr '\n' ' ' | sed 's/ $//')"

# 2. Job control: ^Z stops a job, fg brings it back, ^C ends it with SIGINT (130).
mark
type_line "sleep 300"
sleep 0.3
T send-keys C-z
wait_for 'Stopped +sleep 300' 5
type_line "jobs; echo ${m}-jobs"
wait_for "^${m}-jobs" 5
stopped=$(screen | tr -d '\r' | grep -cE '^\[1\]\+ +Stopped +sleep 300$')
type_line "fg"
sleep 0.5
T send-keys C-c
type_line "echo ${m}-rc=\$?"
wait_for "^${m}-rc=" 5
check "^Z stops the job (jobs lists it), fg resumes it, ^C ends it with status 130" \
        "stopped:2 ${m}-rc=130" "stopped:$stopped $(screen | tr -d '\r' | grep -E "^${m}-rc=" | tail -1)"

# 3. ^\ sends SIGQUIT to the foreground job (131), not to cordon.
mark
type_line "sleep 300"
sleep 0.3
T send-keys 'C-\'
type_line "echo ${m}-rc=\$?"
wait_for "^${m}-rc=" 5
check "^\\ quits the foreground job with status 131" "${m}-rc=131" \
        "$(screen | tr -d '\r' | grep -E "^${m}-rc=" | tail -1)"

# 4. A window resize reaches the inside: tput asks the terminal for its size.
T resize-window -x 77 -y 21
sleep 0.3
mark
type_line "echo ${m}-\$(tput cols)x\$(tput lines)"
wait_for "^${m}-[0-9]+x" 5
check "tput sees the new window size after a resize" "${m}-77x21" \
        "$(screen | tr -d '\r' | grep -E "^${m}-[0-9]+x" | tail -1)"
T resize-window -x 100 -y 30

# 5. vim opens full-screen, takes keystrokes and quits.
type_line "vim -u NONE -i NONE -N vim-test.txt"
if wait_for '"vim-test.txt" \[New\]' 10; then vim_seen=yes; else vim_seen=no; fi
T send-keys -l 'ihello from vim'
T send-keys Escape
T send-keys -l ':wq'
T send-keys Enter
mark
type_line "cat vim-test.txt; echo ${m}-done"
wait_for "^${m}-done" 10
check "vim opens, edits and writes a file, and quits" "screen:yes file:hello from vim" \
        "screen:$vim_seen file:$(cat "$T_PROJECT/vim-test.txt" 2>/dev/null)"

# 6. Leaving the inner shell: its status comes back, and the user's terminal mode with it.
type_line "exit 7"
if wait_for '^outer-rc=7' 10; then ok "the inner shell's exit status reaches the outer shell"
else not_ok "the inner shell's exit status reaches the outer shell" "$(screen | tail -5)"; fi
outer 'stty -g > "$T_TMP/stty.after"'
check "the terminal mode is restored after a normal exit" "$(cat "$T_TMP/stty.before")" \
        "$(cat "$T_TMP/stty.after" 2>/dev/null)"

# 7. ^C at a plain command run by cordon: it reaches the command (130), not only cordon.
mark
type_line "\"\$CORDON\" run -q -- sh -c 'trap \"echo got-SIGINT; exit 130\" INT; echo ${m}-ready; while :; do sleep 0.1; done'; echo \"${m}-rc=\$?\""
wait_for "^${m}-ready" 15
T send-keys C-c
wait_for "^${m}-rc=" 10
check "^C reaches the command inside, whose status cordon returns" "got-SIGINT ${m}-rc=130" \
        "$(screen | tr -d '\r' | grep -oE "(got-SIGINT|${m}-rc=[0-9]+)\$" | tail -2 | tr '\n' ' ' | sed 's/ $//')"

# 8. Killed by --timeout while in raw mode: the terminal mode is still restored.
outer '"$CORDON" run -q --timeout 1 -- bash --norc --noprofile -i >/dev/null 2>&1; echo "rc=$?"; stty -g > "$T_TMP/stty.timeout"' 20
check "the terminal mode is restored after a --timeout kill (exit 124)" \
        "rc=124 $(cat "$T_TMP/stty.before")" "$(echo "$got" | grep '^rc=') $(cat "$T_TMP/stty.timeout" 2>/dev/null)"

# 9. Output to a pipe stays a pipe: no \r\n from the pty in data the user pipes on.
outer '"$CORDON" run -q -- sh -c "printf \"a\\nb\\n\"; test -t 1 || echo stdout-not-a-tty" 2>/dev/null | od -An -c | tr -s " "'
check "stdout piped onwards gets the bytes as written, not the pty's" \
        "a \\n b \\n s t d o u t - n o t - a - t t y \\n" "$(echo "$got" | tr -d '\n' | sed 's/^ //')"

# 10-13. TIOCSTI. The positive control: run in the outer shell itself, it injects a command that
# the outer shell then runs. Through cordon, without the seccomp layer (--profile unrestricted),
# the same call succeeds, but on the sandbox's own terminal, so nothing reaches the outer shell;
# with the default profile the filter refuses it (EPERM).
# In the project directory: the outer shell started before this, and the sandbox sees it.
cat > "$T_PROJECT/inject.py" <<'EOF'
import errno, fcntl, sys, termios
try:
    for c in sys.argv[1].encode():
        fcntl.ioctl(0, termios.TIOCSTI, bytes([c]))
    print("tiocsti=OK")
except OSError as e:
    print("tiocsti=" + errno.errorcode[e.errno])
EOF
rm -f "$T_TMP/injected-"*
outer 'python3 inject.py "touch $T_TMP/injected-control
"' 10
control=$(echo "$got" | grep -o 'tiocsti=[A-Z]*' | head -1)
sleep 0.5
outer 'true'
check "control: TIOCSTI in the outer shell injects a command it runs" "tiocsti=OK yes" \
        "$control $(test -e "$T_TMP/injected-control" && echo yes || echo no)"
outer '"$CORDON" run -q --profile unrestricted -- python3 inject.py "touch $T_TMP/injected-cordon
"; echo "rc=$?"' 20
inside=$(echo "$got" | grep -o 'tiocsti=[A-Z]*' | head -1)
sleep 0.5
outer 'true'
check "TIOCSTI inside (no seccomp) succeeds on the sandbox's own terminal" "tiocsti=OK" "$inside"
check "... and nothing it injected reaches the outer shell" "no" \
        "$(test -e "$T_TMP/injected-cordon" && echo yes || echo no)"
outer '"$CORDON" run -q -- python3 inject.py "touch $T_TMP/injected-seccomp
"' 20
check "TIOCSTI inside with the default profile is refused by the filter" "tiocsti=EPERM no" \
        "$(echo "$got" | grep -o 'tiocsti=[A-Z]*' | head -1) $(test -e "$T_TMP/injected-seccomp" && echo yes || echo no)"
# Without the pty (--no-pty) the command holds the user's real terminal, but in a session of its
# own, where TIOCSTI on a terminal that is not the caller's controlling one is refused.
outer '"$CORDON" run -q --no-pty --profile unrestricted -- python3 inject.py "touch $T_TMP/injected-nopty
"' 20
check "--no-pty: TIOCSTI on the user's terminal from its own session is refused" "tiocsti=EPERM no" \
        "$(echo "$got" | grep -o 'tiocsti=[A-Z]*' | head -1) $(test -e "$T_TMP/injected-nopty" && echo yes || echo no)"

# 17-19. OSC 52 writes the clipboard: with set-clipboard on, tmux makes a paste buffer of it. The
# control is the outer shell; through cordon the write (and a query) is dropped, and
# --terminal-passthrough lets it through.
T set-option -g set-clipboard on
buffers() { T list-buffers -F '#{buffer_sample}' 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
outer "printf '\\033]52;c;Y29udHJvbA==\\007'"
check "control: OSC 52 from the outer shell makes a tmux buffer" "control" "$(buffers)"
outer "\"\$CORDON\" run -q -- sh -c 'printf \"\\033]52;c;aW5zaWRl\\007\\033]52;c;?\\007\"'"
check "OSC 52 from inside the sandbox does not reach the terminal" "control" "$(buffers)"
outer "\"\$CORDON\" run -q --terminal-passthrough -- sh -c 'printf \"\\033]52;c;cGFzc2Vk\\007\"'"
check "... and reaches it with --terminal-passthrough" "passed control" "$(buffers)"

# 20. The window title outlives the sandbox: a title set inside is dropped (passthrough: set).
T select-pane -T before
outer "\"\$CORDON\" run -q -- sh -c 'printf \"\\033]2;inside\\007\"'"
title_filtered=$(T display -p '#{pane_title}')
outer "\"\$CORDON\" run -q --terminal-passthrough -- sh -c 'printf \"\\033]2;passed\\007\"'"
check "a title set inside stays inside (--terminal-passthrough sets it)" "before passed" \
        "$title_filtered $(T display -p '#{pane_title}')"

# 21-22. Queries just before the end: the control shows tmux's answer to DA2, sent from the outer
# shell, read by the shell as typed input. Through cordon, DA2 and DSR 5n are dropped, and the
# answers to the cursor position (6n) and DA1 queries that pass are awaited and discarded: the
# outer shell reads nothing.
outer "printf '\\033[>c'; IFS= read -r -t 1 -d '' x; printf 'got=%q\\n' \"\$x\""
# (What the screen shows of the answers is their echo by the terminal they were typed into.)
g=$(echo "$got" | grep -o 'got=.*' | head -1)
check "control: a query's answer is read by the outer shell" "yes" \
        "$(case $g in "got=\$'\\E[>"*) echo yes ;; *) echo "no: $g" ;; esac)"
outer "\"\$CORDON\" run -q -- sh -c 'printf \"\\033[>c\\033[5n\\033[6n\\033[c\"'; IFS= read -r -t 1 -d '' x; printf 'got=%q\\n' \"\$x\""
check "answers to queries sent just before the end do not reach the outer shell" "got=''" \
        "$(echo "$got" | grep -o 'got=.*' | head -1)"

# 23-24. Modes left on: the control sets them from the outer shell, and tmux shows them on;
# set inside cordon, they are off once it has ended.
modes() { T display -p '#{alternate_on} #{mouse_any_flag} #{keypad_cursor_flag} #{cursor_flag}'; }
outer "printf '\\033[?1049h\\033[?1003h\\033[?1h\\033[?25l'"
control=$(modes)
outer "printf '\\033[?1049l\\033[?1003l\\033[?1l\\033[?25h'"
check "control: alternate screen, mouse, cursor keys and hidden cursor show in tmux" \
        "1 1 1 0 0 0 0 1" "$control $(modes)"
outer "\"\$CORDON\" run -q -- sh -c 'printf \"\\033[?1049h\\033[?1003h\\033[?1h\\033[?25l\\033[?2004h\"'"
check "the modes the sandbox turned on are off after it ended" "0 0 0 1" "$(modes)"

# What the terminal showed, for the log of a failed run.
[ "$_tap_failed" -eq 0 ] || screen | tail -60 | sed 's/^/# | /'
exit 0
