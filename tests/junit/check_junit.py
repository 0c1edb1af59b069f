"""Reads soapbench's --junit files with junitparser, as a CI report action does,
and checks what it sees. Usage: check_junit.py FAILED.xml PASSED.xml UNREACHABLE.xml"""
import sys

from junitparser import Error, Failure, JUnitXml, Skipped


def cases(path):
    xml = JUnitXml.fromfile(path)
    suites = list(xml) if isinstance(xml, JUnitXml) else [xml]
    return xml, [(suite.name, case) for suite in suites for case in suite]


problems = []


def expect(cond, what):
    if not cond:
        problems.append(what)


failed_path, passed_path, unreachable_path = sys.argv[1:4]

xml, seen = cases(failed_path)
names = [case.name for _, case in seen]
expect(names == ["echoString x1", "echoString x2", "echoStruct x1", "echoStruct x2"], f"failed run: cases {names}")
expect([s for s, _ in seen] == ["echoString", "echoString", "echoStruct", "echoStruct"], "failed run: suites")
for _, case in seen:
    results = case.result
    fails = [r for r in results if isinstance(r, Failure)]
    expect(len(fails) == 1, f"failed run: {case.name}: {len(fails)} failures")
    if fails:
        expect(fails[0].message.startswith("p99<1us failed: measured "), f"failed run: message {fails[0].message!r}")
    expect(case.time > 0, f"failed run: {case.name}: time {case.time}")
expect(xml.tests == 4 and xml.failures == 4 and xml.errors == 0, f"failed run: totals {xml.tests}/{xml.failures}/{xml.errors}")

xml, seen = cases(passed_path)
expect(len(seen) == 1 and seen[0][1].name == "echoString x1", "passed run: one case")
expect(all(not case.result for _, case in seen), "passed run: a case has a result (failure, error or skip)")
expect(xml.failures == 0 and xml.errors == 0, "passed run: failures or errors")

xml, seen = cases(unreachable_path)
errors = [r for _, case in seen for r in case.result if isinstance(r, Error)]
expect(len(errors) == 1 and "cannot reach" in (errors[0].message or ""), f"unreachable: errors {errors}")
expect(not any(isinstance(r, (Failure, Skipped)) for _, case in seen for r in case.result), "unreachable: other results")

for p in problems:
    print("FAIL:", p)
print("ok" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
