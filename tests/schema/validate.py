"""Validates results files against schemas/results-vN.schema.json with the
jsonschema package (Debian's python3-jsonschema, run with /usr/bin/python3).

Usage: validate.py SCHEMA FILE...   Exit 0 when every file is valid (and there
is at least one), 1 with each error's file and JSON path otherwise.
"""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    files = sys.argv[2:]
    bad = 0
    for path in files:
        for error in validator.iter_errors(json.load(open(path))):
            bad += 1
            print(f"{path}: {'/'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message[:300]}")
    print(f"{len(files)} files, {bad} errors")
    return 0 if files and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
