"""The CRDs under crds/ without a cluster (issue 6): each file's shape (group, version,
names, scope, status subresource, printer columns, a description on every field,
defaults equal to the C++ model's), every sample manifest valid against its CRD's
schema, and each schema-layer case of crd_cases/invalid.yaml rejected at its field.
With env AX_AXCTL_BIN (ctest sets it), `axctl validate` must agree: the fixtures are
valid to the C++ parser too and each negative case is rejected there as well, unless
it says `cxx: accepts` (the CRD is deliberately stricter); MeasurementReports go through
`axctl geo suggest --reports` the same way. The CEL rules need a real
apiserver: test_crds_apiserver.py. Helpers: crdschema.py."""

from __future__ import annotations

import math
import os
import re
import subprocess

import pytest
import yaml

from crdschema import (API_VERSION, CASES_DIR, CRDS_DIR, GROUP, REPO, VERSION, error_path,
                       example_files, example_objects, invalid_cases, load_crds,
                       load_yaml_docs, validator)

CRDS = load_crds()

# Kind -> plural, short name, printer column headers as kubectl prints them.
EXPECTED = {
    "Domain": ("domains", "axdom", ["FQDN", "STRATEGY", "READY", "AGE"]),
    "Region": ("regions", "axreg", ["AREA", "ISP", "NODES", "READY", "VANTAGES"]),
    "Node": ("nodes", "axnode", ["AREA", "ISP", "HEALTH", "LATENCY", "LOAD", "AGE"]),
    "Rule": ("rules", "axrule", ["DOMAIN", "ACTION", "NODE", "EXPIRES", "ACTIVE"]),
    "Canary": ("canaries", "axcanary", ["DOMAIN", "NODE", "PHASE", "PERCENT"]),
    "IspSet": ("ispsets", "axisp", ["ASNS", "NAMES", "READY"]),
    "GeoOverride": ("geooverrides", "axgeo", ["REGION", "APPROVED", "PHASE", "EXPIRES"]),
    "ProbeReport": ("probereports", "axpr", ["VANTAGE", "OBSERVED", "STALE"]),
    "MeasurementReport": ("measurementreports", "axmr", ["SOURCE", "FROM", "TO", "AGE"]),
}
# Short names of built-in and common add-on resources a new one must not take.
BUILTIN_SHORT_NAMES = {
    "cm", "crd", "crds", "cs", "csr", "deploy", "ds", "ep", "ev", "hpa", "ing", "limits",
    "netpol", "no", "ns", "pc", "pdb", "po", "psp", "pv", "pvc", "quota", "rc", "rs",
    "sa", "sc", "sts", "svc", "ingclass", "cert", "certs", "vs", "gw", "dr", "se"}
CONDITION_KEYS = {"type", "status", "observedGeneration", "lastTransitionTime", "reason",
                  "message"}


def version_of(crd: dict) -> dict:
    (version,) = crd["spec"]["versions"]
    return version


def schema_of(crd: dict) -> dict:
    return version_of(crd)["schema"]["openAPIV3Schema"]


def field_schema(crd: dict, dotted: str) -> dict:
    node = schema_of(crd)
    for name in dotted.split("."):
        node = node["properties"][name]
    return node


def walk_fields(node: dict, path: str = ""):
    """(path, schema) of every named field and list item below node."""
    for name, sub in node.get("properties", {}).items():
        yield f"{path}.{name}".lstrip("."), sub
        yield from walk_fields(sub, f"{path}.{name}")
    if isinstance(node.get("items"), dict):
        yield f"{path}[]", node["items"]
        yield from walk_fields(node["items"], f"{path}[]")


def test_one_file_per_kind():
    assert sorted(CRDS) == sorted(EXPECTED)
    for f in CRDS_DIR.glob("*.yaml"):
        assert f.read_text().startswith("# CRD "), f"{f.name}: header comment missing"


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_names_scope_and_version(kind):
    crd, (plural, short, _) = CRDS[kind], EXPECTED[kind]
    assert crd["apiVersion"] == "apiextensions.k8s.io/v1"
    assert crd["kind"] == "CustomResourceDefinition"
    assert crd["metadata"]["name"] == f"{plural}.{GROUP}"
    spec = crd["spec"]
    assert spec["group"] == GROUP and spec["scope"] == "Namespaced"
    assert spec["names"] == {"kind": kind, "listKind": f"{kind}List", "plural": plural,
                             "singular": kind.lower(), "shortNames": [short],
                             "categories": ["gslb"]}
    version = version_of(crd)
    assert (version["name"], version["served"], version["storage"]) == (VERSION, True, True)
    assert version["subresources"] == {"status": {}}


def test_short_names_unique_and_not_builtin():
    shorts = [s for crd in CRDS.values() for s in crd["spec"]["names"]["shortNames"]]
    assert len(set(shorts)) == len(shorts)
    assert not set(shorts) & BUILTIN_SHORT_NAMES


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_printer_columns_point_at_schema_fields(kind):
    columns = version_of(CRDS[kind])["additionalPrinterColumns"]
    assert [c["name"].upper() for c in columns] == EXPECTED[kind][2]
    for c in columns:
        assert set(c) <= {"name", "type", "jsonPath", "description", "format", "priority"}, c
        if c["jsonPath"] == ".metadata.creationTimestamp":
            assert c["type"] == "date"
            continue
        field = field_schema(CRDS[kind], c["jsonPath"].lstrip("."))
        assert c["type"] == field.get("type") or (c["type"] == "date" and
                                                   field.get("format") == "date-time"), c


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_status_has_generation_and_standard_conditions(kind):
    status = field_schema(CRDS[kind], "status")
    assert status["properties"]["observedGeneration"]["type"] == "integer"
    conditions = status["properties"]["conditions"]
    assert conditions["x-kubernetes-list-type"] == "map"
    assert conditions["x-kubernetes-list-map-keys"] == ["type"]
    assert set(conditions["items"]["properties"]) == CONDITION_KEYS
    # The same block in every file: a fix to one must reach all.
    assert conditions == field_schema(CRDS["Domain"], "status.conditions")


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_every_field_is_described_and_structural(kind):
    for path, node in walk_fields(schema_of(CRDS[kind])):
        if not path.endswith("[]"):
            description = node.get("description", "")
            assert 0 < len(description) <= 200, f"{kind} {path}: description {description!r}"
        # Structural schema: a type everywhere, except int-or-string and free-form fields.
        assert ("type" in node or node.get("x-kubernetes-int-or-string")
                or node.get("x-kubernetes-preserve-unknown-fields")), f"{kind} {path}"
        assert "uniqueItems" not in node, f"{kind} {path}: use x-kubernetes-list-type: set"
        if "anyOf" in node:
            assert node.get("x-kubernetes-int-or-string"), f"{kind} {path}"
            assert node["anyOf"] == [{"type": "integer"}, {"type": "string"}]


# --- defaults equal the C++ model's ---------------------------------------------------

MODEL_H = (REPO / "core/include/ax/model.h").read_text()
ENUM_NAMES = dict(re.findall(r"\{\w+::(k\w+), \"(\w+)\"\}",
                             (REPO / "core/src/model_names.cc").read_text()))


def cxx_initialiser(struct: str, member: str) -> str:
    """The initialiser of `member` in `struct Name { ... };` of model.h."""
    body = re.search(r"\nstruct %s \{(.*?)\n\};" % struct, MODEL_H, re.S).group(1)
    return re.search(r"\b%s(?: = |\{)([^;]*?)\}?;" % member, body).group(1)


def cxx_default(struct: str, member: str):
    text = cxx_initialiser(struct, member)
    if m := re.fullmatch(r"\w+::(k\w+)", text):
        return ENUM_NAMES[m.group(1)]
    if m := re.fullmatch(r'"(.*)"', text):
        return m.group(1)
    if text in ("true", "false"):
        return text == "true"
    return math.prod(int(f) for f in text.split(" * "))  # e.g. 15 * 60 * 1000


def duration_ms(text) -> int:
    units = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}
    if isinstance(text, int):
        return text * 1000
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)(ms|s|m|h)", text))


DEFAULTS = [  # (kind, field, C++ struct, member, how the CRD spells the value)
    ("Domain", "spec.strategy", "Domain", "strategy", None),
    ("Domain", "spec.maxAnswers", "Domain", "max_answers", None),
    ("Domain", "spec.hysteresisPercent", "Domain", "hysteresis_percent", None),
    ("Domain", "spec.slowStartSeconds", "Domain", "slow_start_seconds", None),
    ("Domain", "spec.answerUnknown", "Domain", "answer_unknown", None),
    ("Domain", "spec.ttl.steady", "TtlPolicy", "steady", None),
    ("Domain", "spec.ttl.failover", "TtlPolicy", "failover", None),
    ("Domain", "spec.ttl.canary", "TtlPolicy", "canary", None),
    ("Domain", "spec.anycast.policy", "DomainAnycast", "policy", None),
    ("Node", "spec.weight", "Node", "weight", None),
    ("Node", "spec.adminState", "Node", "admin_state", None),
    ("Node", "spec.healthCheck.protocol", "HealthCheck", "protocol", None),
    ("Node", "spec.healthCheck.path", "HealthCheck", "path", None),
    ("Node", "spec.healthCheck.expectStatus", "HealthCheck", "expect_status", lambda v: [v]),
    ("Node", "spec.healthCheck.timeout", "HealthCheck", "timeout_ms", duration_ms),
    ("Node", "spec.healthCheck.interval", "HealthCheck", "interval_ms", duration_ms),
    ("Node", "spec.healthCheck.failureThreshold", "HealthCheck", "failure_threshold", None),
    ("Node", "spec.healthCheck.successThreshold", "HealthCheck", "success_threshold", None),
    ("Node", "spec.healthCheck.flapDamping.enabled", "FlapDamping", "enabled", None),
    ("Node", "spec.healthCheck.flapDamping.halfLife", "FlapDamping", "half_life_ms",
     duration_ms),
    ("Node", "spec.healthCheck.flapDamping.maxSuppress", "FlapDamping", "max_suppress_ms",
     duration_ms),
]


@pytest.mark.parametrize("kind,field,struct,member,spell", DEFAULTS,
                         ids=[f"{d[0]}.{d[1]}" for d in DEFAULTS])
def test_default_matches_cxx_model(kind, field, struct, member, spell):
    crd_default = field_schema(CRDS[kind], field)["default"]
    expected = cxx_default(struct, member)
    if spell is duration_ms:
        assert duration_ms(crd_default) == expected
    else:
        assert crd_default == (spell(expected) if spell else expected)


def test_domain_ttl_defaults_when_absent():
    # Nested defaults apply only inside an object that exists: ttl defaults to {}.
    assert field_schema(CRDS["Domain"], "spec.ttl")["default"] == {}


# --- manifests against the schemas ----------------------------------------------------

def test_examples_found():
    found = {str(f.relative_to(REPO)) for f in example_files()}
    assert {"examples/quickstart/nodes.yaml", "tests/integration/manifests/grpc/grpc.yaml",
            "tests/integration/crd_cases/valid/probereport.yaml",
            "tests/integration/crd_cases/valid/measurementreport.yaml"} <= found
    assert {kind for _, obj in example_objects() for kind in [obj["kind"]]} == set(EXPECTED)


@pytest.mark.parametrize("name,obj", example_objects(), ids=[n for n, _ in example_objects()])
def test_example_is_valid(name, obj):
    assert obj["apiVersion"] == API_VERSION
    errors = [f"{error_path(e)}: {e.message}" for e in validator(CRDS[obj["kind"]])
              .iter_errors(obj)]
    assert not errors, f"{name}: " + "; ".join(errors)


CASES = invalid_cases()


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_invalid_case(case):
    obj = case["object"]
    errors = list(validator(CRDS[obj["kind"]]).iter_errors(obj))
    if case["layer"] == "cel":
        # Only a CEL rule can catch it: the schema alone must let it through.
        assert not errors, [f"{error_path(e)}: {e.message}" for e in errors]
    else:
        assert case["layer"] == "schema"
        paths = [error_path(e) for e in errors]
        assert case["field"] in paths, f"rejected at {paths}, expected {case['field']}"


# --- the C++ parser agrees (axctl validate) -------------------------------------------

AXCTL = os.environ.get("AX_AXCTL_BIN")
needs_axctl = pytest.mark.skipif(not AXCTL, reason="set AX_AXCTL_BIN to compare with axctl")
WORLD = CASES_DIR / "valid" / "world.yaml"


def axctl_validate(path) -> subprocess.CompletedProcess:
    return subprocess.run([AXCTL, "validate", str(path)], capture_output=True, text=True,
                          timeout=60)


@needs_axctl
def test_axctl_accepts_the_valid_world():
    r = axctl_validate(WORLD)
    assert r.returncode == 0, r.stdout + r.stderr


# The reports are not manifests of a World: axctl validate does not read them.
WORLD_CASES = [c for c in CASES
               if c["object"]["kind"] not in ("ProbeReport", "MeasurementReport")]


@needs_axctl
@pytest.mark.parametrize("case", WORLD_CASES, ids=[c["case"] for c in WORLD_CASES])
def test_axctl_agrees_on_invalid_case(case, tmp_path):
    docs = [case["object"] if f"{d['kind']}/{d['metadata']['name']}" == case["base"] else d
            for d in load_yaml_docs(WORLD)]
    (tmp_path / "world.yaml").write_text(yaml.safe_dump_all(docs))
    r = axctl_validate(tmp_path / "world.yaml")
    if case.get("cxx") == "accepts":
        assert r.returncode == 0, r.stdout + r.stderr
    else:
        assert r.returncode != 0 and case["field"] in r.stdout + r.stderr, r.stdout + r.stderr


# MeasurementReports are read by `axctl geo suggest --reports` (ParseMeasurementReport),
# which refuses a report it cannot parse, naming the field.
MEASUREMENT_REPORT = CASES_DIR / "valid" / "measurementreport.yaml"
REPORT_CASES = [c for c in CASES if c["object"]["kind"] == "MeasurementReport"]


def axctl_read_report(path) -> subprocess.CompletedProcess:
    return subprocess.run([AXCTL, "geo", "suggest", str(WORLD), "--reports", str(path)],
                          capture_output=True, text=True, timeout=60)


@needs_axctl
def test_axctl_reads_the_valid_measurement_report():
    r = axctl_read_report(MEASUREMENT_REPORT)
    assert r.returncode == 0 and "from 0 samples and 1 reports" in r.stderr, r.stderr


@needs_axctl
@pytest.mark.parametrize("case", REPORT_CASES, ids=[c["case"] for c in REPORT_CASES])
def test_axctl_agrees_on_invalid_report(case, tmp_path):
    (tmp_path / "report.yaml").write_text(yaml.safe_dump(case["object"]))
    r = axctl_read_report(tmp_path / "report.yaml")
    if case.get("cxx") == "accepts":
        assert r.returncode == 0, r.stdout + r.stderr
    else:
        assert r.returncode != 0 and case["field"] in r.stderr, r.stdout + r.stderr
