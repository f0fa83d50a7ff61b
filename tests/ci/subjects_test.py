#!/usr/bin/env python3
"""Every commit after SINCE has a subject of at most 72 characters (the why and the
figures go in the body), so `git log --oneline` reads as a list of what changed. Commits before
the line are history and are not rewritten.

usage: subjects_test.py SOURCE_DIR SINCE | --self-test
  --self-test   the check itself, on a scratch repository with one long subject and one that fits
exit: 0 every subject fits, 1 some do not (each is named), 77 not a git checkout holding the
      commit (tests/ci/CMakeLists.txt registers the test only where it is)
"""

import os
import subprocess
import sys
import tempfile

LIMIT = 72


def check(src, since):
    """Returns (exit code, text) for the commits of src after since."""
    probe = subprocess.run(["git", "-C", src, "rev-parse", "--verify", "--quiet",
                            since + "^{commit}"], capture_output=True, text=True)
    if probe.returncode != 0:
        return 77, (f"not a git checkout with commit {since} (a source tarball or a shallow "
                    "clone): nothing to check")
    log = subprocess.run(["git", "-C", src, "log", "--no-merges", "--format=%h%x00%s",
                          since + "..HEAD"], capture_output=True, text=True, check=True)
    lines = log.stdout.splitlines()
    long = []
    for line in lines:
        sha, subject = line.split("\0", 1)
        if len(subject) > LIMIT:
            long.append(f"  {sha} ({len(subject)} characters): {subject}")
    if long:
        return 1, (f"commit subjects over {LIMIT} characters since {since} "
                   "(say what in the subject, why and figures in the body):\n" + "\n".join(long))
    return 0, f"{len(lines)} commit subjects since {since}, each at most {LIMIT} characters"


def self_test():
    with tempfile.TemporaryDirectory() as repo:
        def git(*args):
            env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                       GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
            return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True,
                                  check=True, env=env).stdout.strip()
        git("init", "-q", ".")
        git("commit", "-q", "--allow-empty", "-m", "x" * 100)  # before the line: not checked
        base = git("rev-parse", "HEAD")
        git("commit", "-q", "--allow-empty", "-m", "y" * 72, "-m", "a body may be long " * 10)
        rc, text = check(repo, base)
        assert rc == 0 and "1 commit subjects" in text, (rc, text)
        git("commit", "-q", "--allow-empty", "-m", "z" * 73)
        rc, text = check(repo, base)
        assert rc == 1 and "(73 characters): " + "z" * 73 in text and "y" * 72 not in text, text
        rc, text = check(repo, "0" * 40)
        assert rc == 77, (rc, text)
        rc, text = check(os.path.join(repo, "missing"), base)
        assert rc == 77, (rc, text)
    print("self-test: a 72-character subject passes, a 73-character one is named, "
          "no checkout is a skip")
    return 0


def main():
    if sys.argv[1] == "--self-test":
        return self_test()
    rc, text = check(sys.argv[1], sys.argv[2])
    print(text)
    return rc


if __name__ == "__main__":
    sys.exit(main())
