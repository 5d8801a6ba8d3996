"""Shared by the CRD suites (test_crds.py, test_crds_apiserver.py): loading crds/, the
sample manifests every CRD must accept, the negative cases of crd_cases/invalid.yaml,
and a jsonschema view of a CRD's openAPIV3Schema. Pure file work: no cluster here.

The jsonschema view drops the Kubernetes-only x-kubernetes-* keys (CEL rules need a
real apiserver) but mirrors what kubectl and the apiserver would also reject: unknown
fields (strict field validation; the C++ parser rejects them too) and duplicates in
list-type set/map lists."""

from __future__ import annotations

import copy
import re
from datetime import datetime
from pathlib import Path

import jsonschema
import yaml

REPO = Path(__file__).resolve().parents[2]
CRDS_DIR = REPO / "crds"
CASES_DIR = Path(__file__).resolve().parent / "crd_cases"
GROUP = "gslb.ax.io"
VERSION = "v1alpha1"
API_VERSION = f"{GROUP}/{VERSION}"
# Where sample manifests live; every gslb.ax.io object found there must be valid.
EXAMPLE_ROOTS = [REPO / "examples", REPO / "tests" / "integration" / "manifests",
                 REPO / "tests" / "testdata", CASES_DIR / "valid"]


def load_yaml_docs(path: Path) -> list:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def load_crds() -> dict[str, dict]:
    """Kind -> CRD document, one per file of crds/."""
    crds = {}
    for f in sorted(CRDS_DIR.glob("*.yaml")):
        docs = load_yaml_docs(f)
        assert len(docs) == 1, f"{f}: one CRD per file, got {len(docs)} documents"
        crds[docs[0]["spec"]["names"]["kind"]] = docs[0]
    return crds


def example_files() -> list[Path]:
    """YAML files under EXAMPLE_ROOTS holding at least one gslb.ax.io object."""
    files = []
    for root in EXAMPLE_ROOTS:
        for f in sorted([*root.rglob("*.yaml"), *root.rglob("*.yml")]):
            if any(is_ax_object(d) for d in load_yaml_docs(f)):
                files.append(f)
    return files


def is_ax_object(doc) -> bool:
    return isinstance(doc, dict) and str(doc.get("apiVersion", "")).startswith(GROUP + "/")


def example_objects() -> list[tuple[str, dict]]:
    """(file#index name, object) for every gslb.ax.io object of example_files()."""
    out = []
    for f in example_files():
        for doc in load_yaml_docs(f):
            if is_ax_object(doc):
                out.append((f"{f.relative_to(REPO)}:{doc['kind']}/{doc['metadata']['name']}", doc))
    return out


# --- negative cases -------------------------------------------------------------------

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _path_steps(path: str) -> list:
    return [int(i) if i else key for key, i in _STEP.findall(path)]


def set_path(obj: dict, path: str, value) -> None:
    """obj at dotted path (with [i] indexes) = value; None deletes the key."""
    *parents, last = _path_steps(path)
    for step in parents:
        obj = obj.setdefault(step, {}) if isinstance(step, str) else obj[step]
    if value is None:
        obj.pop(last, None)
    else:
        obj[last] = value


def invalid_cases() -> list[dict]:
    """crd_cases/invalid.yaml with each case's object built from its base."""
    bases = {f"{d['kind']}/{d['metadata']['name']}": d
             for f in sorted((CASES_DIR / "valid").glob("*.yaml")) for d in load_yaml_docs(f)}
    cases = yaml.safe_load((CASES_DIR / "invalid.yaml").read_text())
    for case in cases:
        obj = copy.deepcopy(bases[case["base"]])
        for path, value in case["set"].items():
            set_path(obj, path, value)
        case["object"] = obj
    return cases


# --- jsonschema view of a CRD ---------------------------------------------------------

def _list_map_keys(validator, keys, instance, schema):
    """x-kubernetes-list-type: map: no two items with the same key values."""
    if not validator.is_type(instance, "array"):
        return
    seen = set()
    for i, item in enumerate(instance):
        key = tuple(repr(item.get(k)) for k in keys) if isinstance(item, dict) else None
        if key in seen:
            yield jsonschema.ValidationError(f"duplicate entry for {keys} {key}", path=[i])
        seen.add(key)


def _unique_items(validator, unique, instance, schema):
    """x-kubernetes-list-type: set, reported at the repeated item like the apiserver."""
    if not unique or not validator.is_type(instance, "array"):
        return
    seen = []
    for i, item in enumerate(instance):
        if item in seen:
            yield jsonschema.ValidationError(f"duplicate value {item!r}", path=[i])
        seen.append(item)


_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
FORMATS = jsonschema.FormatChecker(formats=())


@FORMATS.checks("date-time")
def _is_date_time(value) -> bool:
    """RFC 3339 as core/src/manifest_formats.cc ParseRfc3339 reads it (a real date)."""
    if not isinstance(value, str):
        return True
    if not _RFC3339.match(value):
        return False
    try:
        datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def to_jsonschema(node):
    """A Kubernetes structural schema node as plain JSON Schema (see module doc)."""
    if isinstance(node, list):
        return [to_jsonschema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key.startswith("x-kubernetes-"):
            continue
        if key == "properties":
            out[key] = {name: to_jsonschema(s) for name, s in value.items()}
        elif key in ("items", "additionalProperties", "not", "anyOf", "allOf", "oneOf"):
            out[key] = to_jsonschema(value)
        else:  # default, enum and validation keywords: data, copied as is
            out[key] = value
    list_type = node.get("x-kubernetes-list-type")
    if list_type == "set":
        out["axUniqueItems"] = True
    elif list_type == "map":
        out["axListMapKeys"] = node["x-kubernetes-list-map-keys"]
    if (node.get("type") == "object" and "additionalProperties" not in node
            and not node.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    return out


_Validator = jsonschema.validators.extend(
    jsonschema.Draft4Validator, {"axUniqueItems": _unique_items, "axListMapKeys": _list_map_keys})


def object_schema(crd: dict) -> dict:
    """The served version's schema, plus the envelope every custom resource has."""
    (version,) = crd["spec"]["versions"]
    schema = to_jsonschema(version["schema"]["openAPIV3Schema"])
    schema["properties"].update({
        "apiVersion": {"enum": [f"{crd['spec']['group']}/{version['name']}"]},
        "kind": {"enum": [crd["spec"]["names"]["kind"]]},
        "metadata": {"type": "object", "required": ["name"]},
    })
    schema["required"] = sorted({*schema.get("required", []), "apiVersion", "kind", "metadata"})
    return schema


def validator(crd: dict):
    return _Validator(object_schema(crd), format_checker=FORMATS)


def error_path(error: jsonschema.ValidationError) -> str:
    """spec.steps[3].percent; for a missing required field, the field itself."""
    steps = list(error.absolute_path)
    if error.validator == "required":
        steps.append(re.match(r"'(.+)' is a required property", error.message).group(1))
    elif error.validator == "additionalProperties":  # the unknown field itself
        steps.append(re.search(r"\('(.+)' was unexpected\)", error.message).group(1))
    out = ""
    for s in steps:
        out += f"[{s}]" if isinstance(s, int) else (f".{s}" if out else s)
    return out
