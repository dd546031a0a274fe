#!/usr/bin/env bash
# capsim starts itself again with glibc's heap on huge pages (cli/main.cpp). The second start
# must see the same arguments and give the same output, messages and exit status as a start that
# does not restart (GLIBC_TUNABLES already naming glibc.malloc.hugetlb).
#   restart_test.sh CAPSIM SCENARIO
set -u
capsim=$1
scenario=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run_both() { # NAME ARGS...: runs capsim both ways; exit status and stdout/stderr must agree
  local name=$1
  shift
  env -u GLIBC_TUNABLES "$capsim" "$@" >"$work/$name.restarted.out" 2>"$work/$name.restarted.err"
  local restarted=$?
  GLIBC_TUNABLES=glibc.malloc.hugetlb=0 "$capsim" "$@" >"$work/$name.plain.out" 2>"$work/$name.plain.err"
  local plain=$?
  if [[ $restarted != "$plain" ]]; then
    echo "$name: exit status $restarted after a restart, $plain without"
    exit 1
  fi
  for stream in out err; do
    if ! cmp -s "$work/$name.restarted.$stream" "$work/$name.plain.$stream"; then
      echo "$name: std$stream differs after a restart"
      diff "$work/$name.restarted.$stream" "$work/$name.plain.$stream" | head -20
      exit 1
    fi
  done
  echo "$name: exit $plain both ways"
}

run_both run run "$scenario" -e karpenter -o json --progress never --seed 7
grep -q '"results"' "$work/run.plain.out" || { echo "run: no JSON result on stdout"; exit 1; }
printf 'apiVersion: capsim/v1\nkind: Scenario\nspec: [\n' >"$work/bad.yaml"
run_both bad validate "$work/bad.yaml"
[[ $(cat "$work/bad.restarted.err") == "$work/bad.yaml:"* ]] || { echo "bad: no FILE:LINE:COL message"; exit 1; }
run_both usage run --no-such-flag
