#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Which tests CI's stages run, and a check that together they run every test.

Reads ctest's own lists (ctest --show-only=json-v1 of a build directory) and its JUnit results
(ctest --output-junit, which scripts/test.sh, test-cuda.sh and test-sanitize.sh write as
<build>/Testing/ctest-junit.xml). Nothing here runs a test.

  ci_tests.py select BUILD --labels RE [--not-in OTHER]
      a ctest -R expression for BUILD's tests that carry a label matching RE, or whose name
      OTHER's configuration does not define (tests that only this configuration has)
  ci_tests.py targets BUILD [--labels RE] [--names RE] [--exclude RE]
      the build targets that BUILD's tests run (their programs; the library and the API reference
      too), of the tests with a label matching --labels and a name matching --names (default: all)
  ci_tests.py changed BUILD [FILE ...]
      a ctest -R expression for the tests that check these files (paths from the source tree's top):
      the unit label, the labels of their area, tests defined in them or running them (scripts/test-changed.sh)
  ci_tests.py report --stage NAME BUILD [--stage NAME BUILD ...] [--slowest N]
      time per label and the N slowest tests over the stages; then the check: every test that
      any stage's configuration defines (the union of their ctest -N) ran in some stage; a test
      that ran nowhere fails it (exit status 1). The last line counts the stages' test runs, a
      test that ran nowhere as failed: "tests: N passed, N failed, N skipped"
"""
import argparse
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET


def ctest_list(build):
    """{name: [labels]} of the tests build's configuration defines (ctest -N)."""
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, check=True).stdout
    data = json.loads(out)
    graph = data.get("backtraceGraph", {})
    files, nodes = graph.get("files", []), graph.get("nodes", [])

    def defined_in(node):
        """The files of a test's definition: its fragment and the files that include it."""
        seen = set()
        while node is not None and 0 <= node < len(nodes):
            seen.add(files[nodes[node]["file"]])
            node = nodes[node].get("parent")
        return seen

    tests = {}
    for t in data.get("tests", []):
        labels = []
        for p in t.get("properties", []):
            if p.get("name") == "LABELS":
                labels = list(p.get("value", []))
        tests[t["name"]] = {"labels": labels, "command": t.get("command", []), "files": defined_in(t.get("backtrace"))}
    return tests


def junit_path(build):
    return os.path.join(build, "Testing", "ctest-junit.xml")


def junit_results(build):
    """{name: (seconds, status)} of the tests one ctest run of build executed (its JUnit file)."""
    path = junit_path(build)
    if not os.path.exists(path):
        return None
    res = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        status = tc.get("status", "run")
        if tc.find("failure") is not None:
            status = "failed"
        elif tc.find("skipped") is not None:
            status = "skipped"
        res[tc.get("name")] = (float(tc.get("time", "0") or 0), status)
    return res


def matching(tests, labels_re):
    """Names of tests with a label that RE matches, as ctest -L matches (a search, not anchored)."""
    rx = re.compile(labels_re)
    return [n for n, t in tests.items() if any(rx.search(l) for l in t["labels"])]


def cmd_select(a):
    tests = ctest_list(a.build)
    names = set(matching(tests, a.labels))
    if a.not_in:
        if os.path.exists(os.path.join(a.not_in, "CTestTestfile.cmake")):
            other = ctest_list(a.not_in)
            names |= {n for n in tests if n not in other}
        else:
            names = set(tests)  # nothing ran elsewhere: this stage runs everything
    if not names:
        sys.exit("ci_tests: no test of %s matches" % a.build)
    print("^(%s)$" % "|".join(re.escape(n) for n in sorted(names)))


def build_targets(build):
    out = subprocess.run(["cmake", "--build", build, "--target", "help"], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    return {m.group(1) for m in re.finditer(r"^\.\.\. (\S+)", out, re.M)}


def testfile_commands(build):
    """{name: command} from the build's CTestTestfile.cmake files, which name a program whether or
    not it is built yet (ctest's own list omits a command whose program does not exist)."""
    cmds = {}
    for d, _, fs in os.walk(build):
        if "CTestTestfile.cmake" in fs:
            with open(os.path.join(d, "CTestTestfile.cmake")) as fh:
                for m in re.finditer(r'^add_test\((?:\[=\[(.*?)\]=\]|(\S+)) (.*)\)$', fh.read(), re.M):
                    cmds[m.group(1) or m.group(2)] = re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(3))
    return cmds


def cmd_targets(a):
    tests = ctest_list(a.build)
    cmds = testfile_commands(a.build)
    known = build_targets(a.build)
    build = os.path.realpath(a.build)
    want = {"mfad"}
    if "docs" in known:
        want.add("docs")  # the API reference, a second or two: the docs tests read it, install installs it
    names = matching(tests, a.labels) if a.labels else list(tests)
    if a.names:
        names = [n for n in names if re.search(a.names, n)]
    if a.exclude:
        names = [n for n in names if not re.search(a.exclude, n)]
    if "mfad_python" in known and any("python" in tests[n]["labels"] for n in names):
        want.add("mfad_python")  # the Python tests' extension (tests/python.cmake), named by no command
    for n in names:
        for arg in cmds.get(n, tests[n]["command"]):
            if os.path.realpath(arg).startswith(build + os.sep) and os.path.basename(arg) in known:
                want.add(os.path.basename(arg))
    print(" ".join(sorted(want)))


# changed source -> the labels of the tests that check it (the unit label always runs)
CHANGED_LABELS = [
    (r"^src/cuda/|^include/mfad/(cuda|loop_cuda)", "cuda"),
    (r"^src/(read|mesh|polytri|dmplex|vtu)|^include/mfadmesh", "readers|mpi"),
    (r"^(src|shell|include)/", "mpi"),  # but the example runs (label example)
    (r"^(tools|cmake)/|CMakeLists\.txt$", "install"),
    (r"^docs/|^README\.md$", "docs"),
    (r"^bench/|^problems/", "bench"),
    (r"^python/mfad/render\.py$|^scripts/render", "render"),
    (r"^python/", "python"),
    (r"^python/mfad/__init__\.py$", "render"),  # render.py imports the package
]


def example_programs(src, f):
    """The example programs built from petsc-examples/<stem>.c, or including its header <stem>.h."""
    stem = os.path.splitext(os.path.basename(f))[0]
    progs = {stem}
    d = os.path.join(src, "petsc-examples")
    for e in os.listdir(d):
        if e.endswith(".c"):
            with open(os.path.join(d, e), errors="replace") as fh:
                if '"%s.h"' % stem in fh.read():
                    progs.add(e[:-2])
    return progs


def cmd_changed(a):
    """A ctest -R expression for the tests that check the files changed (paths from the top)."""
    tests = ctest_list(a.build)
    src = os.path.realpath(a.source)
    names, labels = set(), {"unit"}
    for f in a.files:
        for rx, l in CHANGED_LABELS:
            if re.search(rx, f):
                labels |= set(l.split("|"))
        path = os.path.realpath(os.path.join(src, f))
        stem = os.path.splitext(os.path.basename(f))[0]
        progs = example_programs(src, f) if f.startswith(("petsc-examples/", "problems/")) else set()
        for n, t in tests.items():
            # the fragment that defines the test, its script, its program's source (tests/<name>.c),
            # an example program built from the file or including it
            if (path in t["files"] or any(os.path.realpath(c) == path for c in t["command"])
                    or (f.startswith("tests/") and n.startswith(stem))
                    or any(os.path.basename(c) in progs for c in t["command"])):
                names.add(n)
    # by label: examples (slow, and checked by their own programs above) only when asked by label
    rx = re.compile("^(%s)$" % "|".join(sorted(labels)))
    for n, t in tests.items():
        if any(rx.match(l) for l in t["labels"]) and ("example" in labels or "example" not in t["labels"]):
            names.add(n)
    sys.stderr.write("ci_tests: %d changed files: labels %s and %d tests\n" % (len(a.files), " ".join(sorted(labels)), len(names)))
    print("^(%s)$" % "|".join(re.escape(n) for n in sorted(names)))


def cmd_report(a):
    defined, ran, labels = {}, {}, {}
    for stage, build in a.stage:
        if not os.path.exists(os.path.join(build, "CTestTestfile.cmake")):
            print("ci_tests: stage %s: no configured build in %s (the stage was skipped or failed early)" % (stage, build))
            continue
        tests = ctest_list(build)
        for n, t in tests.items():
            defined.setdefault(n, set()).add(stage)
            labels.setdefault(n, t["labels"])
        res = junit_results(build)
        if res is None:
            print("ci_tests: stage %s: no results (%s): its tests did not run" % (stage, junit_path(build)))
            continue
        for n, (secs, status) in res.items():
            ran.setdefault(n, []).append((stage, secs, status))

    per_label = {}
    for n, runs in ran.items():
        for stage, secs, _ in runs:
            for l in labels.get(n, []) or ["(none)"]:
                key = (stage, l)
                c, s = per_label.get(key, (0, 0.0))
                per_label[key] = (c + 1, s + secs)
    print("ci_tests: test time per stage and label (a test with several labels counts in each)")
    for (stage, l), (c, s) in sorted(per_label.items()):
        print("  %-10s %-10s %4d tests %8.1f s" % (stage, l, c, s))
    flat = sorted(((secs, n, stage) for n, runs in ran.items() for stage, secs, _ in runs), reverse=True)
    print("ci_tests: the %d slowest tests" % a.slowest)
    for secs, n, stage in flat[:a.slowest]:
        print("  %8.1f s  %-45s (%s)" % (secs, n, stage))
    skipped = sorted(n for n, runs in ran.items() if all(st == "skipped" for _, _, st in runs))
    if skipped:
        print("ci_tests: ran and reported Skipped everywhere: %s" % " ".join(skipped))

    missing = sorted(n for n in defined if n not in ran)
    statuses = [st for runs in ran.values() for _, _, st in runs]
    npass, nfail, nskip = (sum(st == "run" for st in statuses), sum(st == "failed" for st in statuses),
                           sum(st == "skipped" for st in statuses))
    print("ci_tests: %d tests defined by the stages' configurations (union of ctest -N), %d ran in some stage"
          % (len(defined), len(set(defined) & set(ran))))
    if missing:
        for n in missing:
            print("ci_tests: MISSING: %s (defined in %s) ran in no stage" % (n, ", ".join(sorted(defined[n]))))
    else:
        print("ci_tests: every defined test ran in at least one stage")
    print("tests: %d passed, %d failed, %d skipped" % (npass, nfail + len(missing), nskip))
    return 1 if missing else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("select")
    s.add_argument("build")
    s.add_argument("--labels", required=True)
    s.add_argument("--not-in")
    t = sub.add_parser("targets")
    t.add_argument("build")
    t.add_argument("--labels", help="tests with a label matching this (ctest -L)")
    t.add_argument("--names", help="tests whose name matches this (ctest -R)")
    t.add_argument("--exclude", help="but not those whose name matches this (ctest -E)")
    c = sub.add_parser("changed")
    c.add_argument("build")
    c.add_argument("--source", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    c.add_argument("files", nargs="*")
    r = sub.add_parser("report")
    r.add_argument("--stage", nargs=2, action="append", metavar=("NAME", "BUILD"), required=True)
    r.add_argument("--slowest", type=int, default=10)
    a = ap.parse_args()
    return {"select": cmd_select, "targets": cmd_targets, "changed": cmd_changed, "report": cmd_report}[a.cmd](a) or 0


if __name__ == "__main__":
    sys.exit(main())
