#!/usr/bin/env python3
"""ci/skips on JUnit files shaped like ctest's (ctest --output-junit, gtest_discover_tests'
SKIP_REGULAR_EXPRESSION) and on allowlists, good and bad; and the checked-in allowlist parses.

usage: skips_test.py CI_SKIPS ALLOWLIST
"""

import os
import subprocess
import sys
import tempfile
import unittest

SKIPS, ALLOWLIST = sys.argv[1], sys.argv[2]


def case(name, status, out="", skipped=None):
    skip = f'<skipped message="{skipped}"/>' if skipped else ""
    return (f'<testcase name="{name}" classname="{name}" time="0.1" status="{status}">{skip}'
            f"<system-out>{out}</system-out></testcase>")


def gtest_skip(name, reason):
    # What a GoogleTest executable prints for GTEST_SKIP() << reason, as ctest stores it.
    return (f"Running main() from gtest_main.cc\nNote: Google Test filter = {name}\n"
            f"[ RUN      ] {name}\n/src/tests/x_test.cpp:58: Skipped\n{reason}\n\n"
            f"[  SKIPPED ] {name} (0 ms)\n")


def skipped(name, reason):
    return case(name, "notrun", gtest_skip(name, reason), "SKIP_REGULAR_EXPRESSION_MATCHED")


class Skips(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def file(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def junit(self, name, *cases):
        return self.file(name, '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="x">'
                         + "".join(cases) + "</testsuite>")

    def enforce(self, allowlist, junit):
        """ci/skips --enforce with an allowlist of this text: (exit status, stdout, stderr)."""
        return self.run_skips("--allowed", self.file("allowed.txt", allowlist), "--enforce",
                              f"debug={junit}")

    def run_skips(self, *args):
        r = subprocess.run([sys.executable, SKIPS, *args], capture_output=True, text=True,
                           timeout=60, check=False)
        return r.returncode, r.stdout, r.stderr

    def test_lists_skips_with_reasons_and_counts_stages(self):
        debug = self.junit("d.xml", case("A.Passes", "run", "ok"),
                           skipped("Tools.Valgrind", "valgrind not installed"),
                           case("A.Fails", "fail"))
        release = self.junit("r.xml", case("A.Passes", "run", "ok"))
        rc, out, _ = self.run_skips(f"debug={debug}", f"release={release}")
        self.assertEqual(rc, 0, out)
        self.assertIn("Skipped tests (1), with their reasons:", out)
        self.assertIn("  Tools.Valgrind: valgrind not installed", out)
        self.assertIn("2 tests passed, 1 failed, 1 skipped (0 allowed) in 2 stages "
                      "(debug 1 of 3, release 1 of 1 passed)", out)

    def test_enforce_fails_on_a_skip_not_in_the_allowlist(self):
        j = self.junit("d.xml", skipped("Tools.Valgrind", "valgrind not installed"))
        rc, out, err = self.enforce("# comment\n\nCpu\\..* no AVX-512 here\n", j)
        self.assertEqual(rc, 1, out)
        self.assertIn("NOT ALLOWED: no entry in", out)
        self.assertIn("Tools.Valgrind", err)
        # Without --enforce (CI unset) the same run lists the skip and passes.
        rc, out, _ = self.run_skips("--allowed", os.path.join(self.dir, "allowed.txt"),
                                    f"debug={j}")
        self.assertEqual(rc, 0, out)

    def test_an_allowed_skip_passes_and_names_its_entry(self):
        j = self.junit("d.xml", skipped("Cpu.Vbmi", "no VBMI"))
        rc, out, _ = self.enforce("# c\nCpu\\.Vb.* the CPU has no AVX-512 VBMI\n", j)
        self.assertEqual(rc, 0, out)
        self.assertIn("allowed.txt:2: the CPU has no AVX-512 VBMI)", out)
        self.assertIn("0 tests passed, 0 failed, 1 skipped (1 allowed) in 1 stage", out)

    def test_the_regex_matches_the_whole_name(self):
        j = self.junit("d.xml", skipped("Cpu.VbmiX", "why"))
        self.assertEqual(self.enforce("Cpu\\.Vbmi reason\n", j)[0], 1)

    def test_a_busy_port_is_never_allowed(self):
        j = self.junit("d.xml", skipped("Run.Quick", "skipped: port 21780 busy"))
        rc, out, _ = self.enforce("Run\\..* listed anyway\n", j)
        self.assertEqual(rc, 1, out)
        self.assertIn("a busy port is never an accepted skip", out)

    def test_a_skip_covered_by_another_stage_is_not_a_skip(self):
        reason = "valgrind cannot run an AddressSanitizer build"
        debug = self.junit("d.xml", skipped("MacroInstructions.Repeat", reason))
        release = self.junit("r.xml", case("MacroInstructions.Repeat", "run", "ok"))
        rc, out, _ = self.run_skips("--enforce", f"debug={debug}", f"release={release}")
        self.assertEqual(rc, 0, out)
        self.assertIn("MacroInstructions.Repeat: skipped in debug, run in release", out)
        self.assertIn("1 tests passed, 0 failed, 0 skipped", out)
        # Skipped in both: a skip, with each stage's reason.
        release = self.junit("r2.xml", skipped("MacroInstructions.Repeat", "valgrind not found"))
        rc, out, _ = self.run_skips("--enforce", f"debug={debug}", f"release={release}")
        self.assertEqual(rc, 1, out)
        self.assertIn(f"debug: {reason}; release: valgrind not found", out)

    def test_a_missing_executable_is_a_failure_not_a_skip(self):
        j = self.junit("d.xml", case("X_NOT_BUILT", "notrun", "Unable to find executable",
                                     "Unable to find executable"),
                       case("Off.Test", "disabled"))
        rc, out, _ = self.run_skips("--enforce", f"debug={j}")
        self.assertEqual(rc, 1, out)  # the disabled test is a skip nobody allowed
        self.assertIn("0 tests passed, 1 failed, 1 skipped", out)
        self.assertIn("Off.Test: disabled", out)

    def test_bad_allowlists_and_inputs_exit_2_naming_the_line(self):
        j = self.junit("d.xml", case("A.Passes", "run"))
        for text, message in [("A\\.B\n", ":1: 'A\\.B' has no reason"),
                              ("# c\nA(B why\n", ":2: 'A(B' is not a regular expression")]:
            allowed = self.file("bad.txt", text)
            rc, _, err = self.run_skips("--allowed", allowed, f"debug={j}")
            self.assertEqual(rc, 2, err)
            self.assertIn(allowed + message, err)
        self.assertEqual(self.run_skips("--allowed", os.path.join(self.dir, "none"),
                                        f"debug={j}")[0], 2)
        self.assertEqual(self.run_skips(j)[0], 2)  # not STAGE=FILE
        self.assertEqual(self.run_skips(f"debug={self.file('x.xml', '<not')}")[0], 2)

    def test_the_checked_in_allowlist_parses_and_lists_no_tool_or_port(self):
        j = self.junit("d.xml", case("A.Passes", "run"))
        rc, _, err = self.run_skips("--allowed", ALLOWLIST, "--enforce", f"debug={j}")
        self.assertEqual(rc, 0, err)
        with open(ALLOWLIST, encoding="utf-8") as f:
            entries = [l for l in f.read().splitlines() if l.strip() and not l.startswith("#")]
        self.assertTrue(entries)
        for line in entries:
            # ci/setup installs the tools and ci/test runs as root: only CPU features may skip.
            self.assertRegex(line.split(None, 1)[1], r"AVX|SSE|CPU", line)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
