#!/usr/bin/env python3
"""The two rule files of the vpatch100 scenarios from one virtual-patch feed.

The feed (macro/scenarios/configs/vpatch100.json, schema gatebench.vpatch/1) lists 100 patches as
a vendor's virtual-patch feed would: a vulnerable endpoint (method, path) and what the exploit
sends there (a parameter, a parameter name, the query, a header). From it this writes

  gateway-vpatch100-rules.json      the gateway's rule file (docs/rules.md), one block rule a patch
  modsecurity-vpatch100-rules.conf  the same patches in SecLang for ModSecurity v3, one rule (chain)
                                    a patch, denying with 403

so that gateway-vpatch100 and nginx-modsecurity-vpatch100 enforce the same set. Both files are
checked in; --check compares them with what the feed gives (exit 1 when they differ), and
tests/macro/driver/vpatch_scenarios_test.cpp runs that and sends every patch's two test requests
(one to block, one benign neighbour to pass) through both WAFs.

Matching is the same on both sides: the path percent-decoded twice, `\\` read as `/`, repeated `/`
merged and dot segments resolved (the gateway's normalisation; in SecLang t:urlDecodeUni twice and
t:normalizePathWin); parameters and the query percent-decoded twice with `+` as a space;
headers as received. Parameter names are matched ignoring case (ModSecurity's collections do).
Regular expressions are written in the subset RE2 and PCRE read alike.

Usage: tools/vpatch_rules.py [--feed FILE] [--out DIR] [--check]
Exit status: 0 written (or up to date with --check), 1 --check found a difference, 2 bad feed or
command line (the message names the file and the field).
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "macro", "scenarios", "configs")
GATEWAY_FILE = "gateway-vpatch100-rules.json"
SECLANG_FILE = "modsecurity-vpatch100-rules.conf"
# ModSecurity rule ids of the patches: the range the CRS leaves to local rules.
FIRST_RULE_ID = 10001

LITERAL_OPS = ("equals", "prefix", "suffix", "contains")
OPS = {
    "method": ("equals",),
    "path": LITERAL_OPS + ("regex",),
    "query": ("contains", "regex"),
    "arg": ("present", "equals", "prefix", "contains", "regex"),
    "arg_name": ("equals", "prefix", "contains"),
    "header": ("equals", "prefix", "contains", "regex"),
}
SECLANG_OP = {"equals": "@streq", "prefix": "@beginsWith", "suffix": "@endsWith",
              "contains": "@contains", "regex": "@rx"}
REQUEST_KEYS = {"method", "path", "query", "headers", "body"}


class FeedError(Exception):
    pass


def re_escape(text):
    """A literal for RE2 and PCRE alike: only their metacharacters are escaped."""
    return "".join("\\" + c if c in "\\.^$|?*+()[]{}" else c for c in text)


class Field:
    """A place in the feed, for error messages: feed.json: patches[3].when[0].op."""

    def __init__(self, source, path=""):
        self.source, self.path = source, path

    def at(self, key):
        sep = "" if isinstance(key, int) or not self.path else "."
        key = f"[{key}]" if isinstance(key, int) else key
        return Field(self.source, self.path + sep + key)

    def fail(self, what):
        raise FeedError(f"{self.source}: {self.path}: {what}")


def string(obj, key, where, required=True):
    if key not in obj:
        if required:
            where.at(key).fail("missing")
        return None
    value = obj[key]
    if not isinstance(value, str) or not value:
        where.at(key).fail("expected a non-empty string")
    if any(c in value for c in "\"\r\n"):
        where.at(key).fail("must not contain a double quote or a line break")
    return value


def check_condition(cond, where):
    if not isinstance(cond, dict):
        where.fail("expected an object")
    allowed = {"field", "op", "value", "name", "in", "case_insensitive"}
    for key in cond:
        if key not in allowed:
            where.at(key).fail("unknown key (expected one of " + ", ".join(sorted(allowed)) + ")")
    field = string(cond, "field", where)
    if field not in OPS:
        where.at("field").fail("expected one of " + ", ".join(OPS))
    op = string(cond, "op", where)
    if op not in OPS[field]:
        where.at("op").fail(f"field {field} takes " + ", ".join(OPS[field]))
    value = string(cond, "value", where, required=op != "present")
    if op == "present" and "value" in cond:
        where.at("value").fail("op present takes no value")
    if field in ("arg", "header"):
        string(cond, "name", where)
    elif "name" in cond:
        where.at("name").fail(f"field {field} takes no name")
    if field in ("arg", "arg_name"):
        if cond.get("in") not in ("query", "body"):
            where.at("in").fail("expected query or body")
    elif "in" in cond:
        where.at("in").fail(f"field {field} takes no in")
    if "case_insensitive" in cond and not isinstance(cond["case_insensitive"], bool):
        where.at("case_insensitive").fail("expected true or false")
    if value is not None and op != "regex" and "%{" in value:
        # ModSecurity expands %{VAR} in the operands of its literal operators.
        where.at("value").fail("a literal must not contain %{ (write a regex with %\\{)")
    if field == "path" and op != "regex" and "+" in value:
        # ModSecurity's URL decoding reads + as a space in the path too; the gateway keeps it.
        where.at("value").fail("a path must not contain + (the two engines decode it differently)")
    if op == "regex" and field == "arg" and ("^" in value or "$" in value):
        where.at("value").fail("a parameter pattern cannot be anchored (use equals or prefix)")


def check_request(req, where):
    if not isinstance(req, dict):
        where.fail("expected a request object")
    for key in req:
        if key not in REQUEST_KEYS:
            where.at(key).fail("unknown key (expected one of " + ", ".join(sorted(REQUEST_KEYS)) + ")")
    path = string(req, "path", where)
    if not path.startswith("/") or " " in path:
        where.at("path").fail("expected a path starting with / and without spaces")
    if "headers" in req and not isinstance(req["headers"], dict):
        where.at("headers").fail("expected an object name -> value")


def load_feed(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise FeedError(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise FeedError(f"{path}:{e.lineno}: {e.msg}")
    top = Field(os.path.basename(path))
    if not isinstance(doc, dict) or doc.get("schema") != "gatebench.vpatch/1":
        top.at("schema").fail("expected gatebench.vpatch/1")
    patches = doc.get("patches")
    if not isinstance(patches, list) or not patches:
        top.at("patches").fail("expected a non-empty array")
    seen = set()
    for i, patch in enumerate(patches):
        where = top.at("patches").at(i)
        if not isinstance(patch, dict):
            where.fail("expected an object")
        for key in patch:
            if key not in ("id", "ref", "title", "when", "block", "pass"):
                where.at(key).fail("unknown key")
        pid = string(patch, "id", where)
        if pid in seen:
            where.at("id").fail(f"expected a unique id, {pid} is used by an earlier patch")
        seen.add(pid)
        string(patch, "title", where)
        if "ref" in patch:
            string(patch, "ref", where)
        when = patch.get("when")
        if not isinstance(when, list) or not when:
            where.at("when").fail("expected a non-empty array of conditions")
        for j, cond in enumerate(when):
            check_condition(cond, where.at("when").at(j))
        for key in ("block", "pass"):
            if key not in patch:
                where.at(key).fail("missing: every patch has a request to block and one to pass")
            check_request(patch[key], where.at(key))
    return patches


# ---- the gateway's rule file -------------------------------------------------------------------

def arg_regex(cond):
    name = "(?i:" + re_escape(cond["name"]) + ")"
    op, value = cond["op"], cond.get("value")
    if op == "present":
        return "(?:^|&)" + name + "(?:[=&]|$)"
    if op == "equals":
        return "(?:^|&)" + name + "=" + re_escape(value) + "(?:&|$)"
    if op == "prefix":
        return "(?:^|&)" + name + "=" + re_escape(value)
    if op == "contains":
        return "(?:^|&)" + name + "=[^&]*" + re_escape(value)
    return "(?:^|&)" + name + "=[^&]*(?:" + value + ")"


def arg_name_regex(cond):
    name = "(?i:" + re_escape(cond["value"]) + ")"
    if cond["op"] == "equals":
        return "(?:^|&)" + name + "(?:[=&]|$)"
    if cond["op"] == "prefix":
        return "(?:^|&)" + name
    return "(?:^|&)[^&=]*" + name


def gateway_condition(cond):
    field, op = cond["field"], cond["op"]
    ci = cond.get("case_insensitive", False)
    if field == "arg":
        out = {"field": cond["in"], "op": "regex", "value": arg_regex(cond)}
    elif field == "arg_name":
        out = {"field": cond["in"], "op": "regex", "value": arg_name_regex(cond)}
    elif field == "header":
        out = {"field": "header", "name": cond["name"], "op": op, "value": cond["value"]}
    else:
        out = {"field": field, "op": op, "value": cond["value"]}
    if ci:
        out["case_insensitive"] = True
    return out


def gateway_rules(patches):
    rules = [{"id": p["id"], "action": "block", "when": [gateway_condition(c) for c in p["when"]]}
             for p in patches]
    doc = {"exploit": {"mode": "off"}, "rules": rules}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


# ---- SecLang -----------------------------------------------------------------------------------

def seclang_variable(cond):
    field = cond["field"]
    if field == "method":
        return "REQUEST_METHOD", ["t:none"]
    if field == "path":
        return "REQUEST_FILENAME", ["t:none", "t:urlDecodeUni", "t:urlDecodeUni",
                                    "t:normalizePathWin"]
    if field == "query":
        return "QUERY_STRING", ["t:none", "t:urlDecodeUni", "t:urlDecodeUni"]
    if field == "header":
        return "REQUEST_HEADERS:" + cond["name"], ["t:none"]
    side = "GET" if cond["in"] == "query" else "POST"
    if field == "arg":
        return f"ARGS_{side}:" + cond["name"], ["t:none", "t:urlDecodeUni"]
    return f"ARGS_{side}_NAMES", ["t:none", "t:urlDecodeUni", "t:lowercase"]


def seclang_condition(cond):
    variable, transforms = seclang_variable(cond)
    op, value = cond["op"], cond.get("value")
    if op == "present":
        return "&" + variable, '"@gt 0"', ["t:none"]
    ci = cond.get("case_insensitive", False) or cond["field"] == "arg_name"
    if op == "regex":
        operand = ("(?i)" if ci else "") + value
    else:
        operand = value.lower() if ci else value
        if ci and "t:lowercase" not in transforms:
            transforms = transforms + ["t:lowercase"]
    return variable, '"' + SECLANG_OP[op] + " " + operand + '"', transforms


def seclang_rules(patches, feed_name):
    out = [f"# Generated by tools/vpatch_rules.py from configs/{feed_name}: do not edit, edit the",
           "# feed and run the tool. One rule (with its chain) per patch, denying with 403; phase 2",
           "# when a condition reads the body, otherwise phase 1.", ""]
    for index, patch in enumerate(patches):
        conds = [seclang_condition(c) for c in patch["when"]]
        phase = 2 if any(c.get("in") == "body" for c in patch["when"]) else 1
        msg = patch["id"] + (" " + patch["ref"] if "ref" in patch else "")
        out.append(f"# {patch['id']}: {patch['title']}")
        for i, (variable, operator, transforms) in enumerate(conds):
            actions = list(transforms)
            if i == 0:
                actions = [f"id:{FIRST_RULE_ID + index}", f"phase:{phase}", "deny", "status:403",
                           "log", f"msg:'{msg}'"] + actions
            if i + 1 < len(conds):
                actions.append("chain")
            indent = "" if i == 0 else "    "
            out.append(f'{indent}SecRule {variable} {operator} "{",".join(actions)}"')
        out.append("")
    return "\n".join(out)


def main(argv):
    parser = argparse.ArgumentParser(
        description="Write the gateway and ModSecurity rule files of the vpatch100 scenarios "
        "from the virtual-patch feed.")
    parser.add_argument("--feed", default=os.path.join(CONFIGS, "vpatch100.json"),
                        help="the feed (default: macro/scenarios/configs/vpatch100.json)")
    parser.add_argument("--out", default=CONFIGS,
                        help="directory of the two rule files (default: the feed's configs)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the files in --out differ from the feed's")
    args = parser.parse_args(argv)
    try:
        patches = load_feed(args.feed)
    except FeedError as e:
        print(f"vpatch_rules: {e}", file=sys.stderr)
        return 2
    files = {GATEWAY_FILE: gateway_rules(patches),
             SECLANG_FILE: seclang_rules(patches, os.path.basename(args.feed))}
    stale = []
    for name, text in files.items():
        path = os.path.join(args.out, name)
        if args.check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(path)
            except OSError:
                stale.append(path)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if stale:
        print("vpatch_rules: not what the feed gives (run tools/vpatch_rules.py): " +
              ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
