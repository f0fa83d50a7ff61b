#!/usr/bin/env python3
"""ci/settle on a load-average file written by the test: quiet at once, loaded until the limit,
quieting down while it waits, and every bad option (exit 2).

usage: settle_test.py CI_SETTLE
"""

import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

SETTLE = sys.argv[1]


class Settle(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.loadavg = os.path.join(self.tmp.name, "loadavg")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, load):
        with open(self.loadavg + ".new", "w") as f:
            f.write(f"{load} 1.00 1.00 1/100 1234\n")
        os.replace(self.loadavg + ".new", self.loadavg)

    def settle(self, *args, timeout=20):
        env = dict(os.environ, GATEBENCH_LOADAVG_FILE=self.loadavg, GATEBENCH_SETTLE_STEP="0.2")
        return subprocess.run([SETTLE, *args], env=env, capture_output=True, text=True,
                              timeout=timeout)

    def test_quiet_machine_returns_at_once_and_silently(self):
        self.write("0.30")
        start = time.monotonic()
        r = self.settle()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertLess(time.monotonic() - start, 2)

    def test_loaded_machine_waits_to_the_limit_and_says_so(self):
        self.write("2.50")
        start = time.monotonic()
        r = self.settle("--max-wait", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreaterEqual(time.monotonic() - start, 1)  # bash counts whole seconds
        self.assertIn("waiting for below 1.0", r.stdout)
        self.assertIn("load still 2.50 after", r.stdout)

    def test_waits_until_the_load_falls_below_the_line(self):
        self.write("1.60")
        timer = threading.Timer(1.5, self.write, args=("0.90",))
        timer.start()
        try:
            r = self.settle("--below", "1.5", "--max-wait", "15")
        finally:
            timer.cancel()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("load 0.90 after", r.stdout)
        self.assertIn("below 1.5", r.stdout)
        self.assertNotIn("still", r.stdout)

    def test_bad_options_exit_2_naming_them(self):
        self.write("0.10")
        for args, said in ((["--below", "high"], "--below 'high'"),
                           (["--max-wait", "1.5"], "--max-wait '1.5'"),
                           (["--max-wait"], "--max-wait needs a value"),
                           (["--sooner"], "unknown option '--sooner'")):
            r = self.settle(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(said, r.stderr)

    def test_unreadable_load_file_is_exit_2(self):
        r = self.settle()  # the file was never written
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read", r.stderr)

    def test_help(self):
        r = subprocess.run([SETTLE, "--help"], capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 0)
        self.assertIn("usage: ci/settle", r.stdout)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
