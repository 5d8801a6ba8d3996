"""docker/Dockerfile against reality, without a Docker engine: the runtime stages install
exactly the Debian bookworm packages that provide the shared libraries `ldd` reports for
the built binaries (mapped with `dpkg -S`), every named package exists in the apt
metadata, the build stage installs scripts/setup.sh's build packages, each image runs as
a numeric non-root user, and each ENTRYPOINT is a binary target of the CMake build copied
from the path the release preset writes it to.

The checks are functions returning problems; test_checks_catch_mistakes feeds them a
broken Dockerfile to show they fail."""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from axharness import REPO, built_binary

DOCKERFILE = REPO / "docker" / "Dockerfile"
SETUP_SH = REPO / "scripts" / "setup.sh"
TARGETS = ("ax-operator", "ax-dns", "ax-probe")
# The ctest environment variable naming each binary's build (TARGET_FILE).
BINARY_ENV = {"ax-operator": "AX_OPERATOR_BIN", "ax-dns": "AX_DNS_BIN",
              "ax-probe": "AX_PROBE_BIN", "axctl": "AX_AXCTL_BIN"}
# Packages of setup.sh that the release binaries do not need to build: compilers cache,
# formatting/lint, test and benchmark libraries, test clients and tools.
SETUP_NOT_FOR_BUILD = {
    "ccache", "git", "clang", "clang-format", "clang-tidy", "shellcheck",
    "libgtest-dev", "libgmock-dev", "libbenchmark-dev", "libldns-dev",
    "python3", "python3-venv", "curl", "openssl", "ca-certificates",
    "dnsutils", "knot-dnsutils", "unbound", "prometheus"}
# Runtime packages no library asks for: the trust store for HTTPS health checks.
RUNTIME_EXTRAS = {"ca-certificates"}


@dataclass
class Stage:
    name: str
    base: str
    packages: list[str] = field(default_factory=list)
    copies: list[tuple[str, str, str]] = field(default_factory=list)  # (from, src, dst)
    user: str | None = None
    entrypoint: list[str] | None = None
    runs: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    out = []
    for line in joined.splitlines():
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def apt_installs(run: str) -> list[str]:
    """Package names of every `apt-get install` in a RUN line."""
    packages = []
    for command in re.split(r"&&|;", run):
        words = shlex.split(command)
        if "apt-get" in words and "install" in words:
            after = words[words.index("install") + 1:]
            packages += [w for w in after if not w.startswith("-")]
    return packages


def parse(text: str) -> tuple[dict[str, str], dict[str, Stage]]:
    """Global ARG defaults and the stages by name."""
    args: dict[str, str] = {}
    stages: dict[str, Stage] = {}
    stage = None
    for word, rest in instructions(text):
        if word == "FROM":
            # A base named by a global ARG is checked as its default.
            rest = re.sub(r"\$\{(\w+)\}", lambda a: args.get(a.group(1), a.group(0)), rest)
            m = re.fullmatch(r"(\S+)(?:\s+AS\s+(\S+))?", rest, re.IGNORECASE)
            assert m, f"FROM {rest}"
            stage = Stage(name=m.group(2) or f"stage{len(stages)}", base=m.group(1))
            stages[stage.name] = stage
        elif word == "ARG" and stage is None:
            name, _, value = rest.partition("=")
            args[name] = value
        elif stage is None:
            continue
        elif word == "RUN":
            stage.runs.append(rest)
            stage.packages += apt_installs(rest)
        elif word == "COPY":
            words = shlex.split(rest)
            source = next((w.split("=", 1)[1] for w in words if w.startswith("--from=")), "")
            paths = [w for w in words if not w.startswith("--")]
            stage.copies += [(source, src, paths[-1]) for src in paths[:-1]]
        elif word == "USER":
            stage.user = rest
        elif word == "ENTRYPOINT":
            stage.entrypoint = json.loads(rest)
        elif word == "LABEL":
            for item in shlex.split(rest):
                key, _, value = item.partition("=")
                stage.labels[key] = value
    return args, stages


def chain(stages: dict[str, Stage], name: str) -> list[Stage]:
    """The stage and the stages it is built FROM, nearest first."""
    out = [stages[name]]
    while out[-1].base in stages:
        out.append(stages[out[-1].base])
    return out


def image_packages(stages: dict[str, Stage], name: str) -> set[str]:
    return {p for s in chain(stages, name) for p in s.packages}


def image_label(stages: dict[str, Stage], name: str, key: str) -> str | None:
    return next((s.labels[key] for s in chain(stages, name) if key in s.labels), None)


def setup_packages(text: str) -> set[str]:
    """scripts/setup.sh's APT_PACKAGES array."""
    m = re.search(r"^APT_PACKAGES=\((.*?)^\)", text, re.MULTILINE | re.DOTALL)
    assert m, "APT_PACKAGES=( ... ) not found in scripts/setup.sh"
    body = "\n".join(line.split("#", 1)[0] for line in m.group(1).splitlines())
    return set(body.split())


def sh(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, check=False)


@functools.lru_cache(maxsize=None)
def package_of(path: str) -> str | None:
    """The Debian package owning a library path (usrmerge: /lib is /usr/lib)."""
    real = os.path.realpath(path)
    for candidate in (path, "/usr" + path, real, "/usr" + real):
        r = sh("dpkg-query", "-S", candidate)
        if r.returncode == 0:
            return r.stdout.split(":", 1)[0].strip()
    return None


@functools.lru_cache(maxsize=None)
def loaded_libraries(binary: Path) -> tuple[tuple[str, str], ...]:
    """(soname, resolved path) of everything `ldd` says the binary loads."""
    r = sh("ldd", str(binary))
    assert r.returncode == 0, r.stderr
    libs = []
    for line in r.stdout.splitlines():
        line = line.strip()
        if "not found" in line:
            libs.append((line.split()[0], ""))
        elif "=>" in line:
            soname, _, rest = line.partition("=>")
            libs.append((soname.strip(), rest.split("(")[0].strip()))
        elif line.startswith("/"):
            path = line.split()[0]
            libs.append((Path(path).name, path))
    return tuple(libs)


def copied_binaries(stages: dict[str, Stage], name: str) -> dict[str, str]:
    """Destination -> path under the release build dir, for COPY --from=build lines."""
    out = {}
    for source, src, dst in stages[name].copies:
        m = re.fullmatch(r"/src/build/release/(.+)", src)
        if source == "build" and m:
            out[dst] = m.group(1)
    return out


# ---- the checks: each returns a list of problems ----------------------------------

def check_structure(stages: dict[str, Stage]) -> list[str]:
    problems = []
    if "build" not in stages or stages["build"].base != "debian:12":
        problems.append("the build stage must be FROM debian:12 AS build")
    for target in TARGETS:
        if target not in stages:
            problems.append(f"no stage {target}")
            continue
        root = chain(stages, target)[-1].base
        if root != "debian:12-slim":
            problems.append(f"{target}: runtime base is {root}, not debian:12-slim")
        if image_label(stages, target, "org.opencontainers.image.title") != target:
            problems.append(f"{target}: org.opencontainers.image.title is not {target}")
        for key in ("org.opencontainers.image.source", "org.opencontainers.image.version"):
            if image_label(stages, target, key) is None:
                problems.append(f"{target}: no {key} label")
    return problems


def check_sources(stages: dict[str, Stage], cmake_lists: str) -> list[str]:
    """The build stage copies the top-level CMake files and every folder the top-level
    CMakeLists.txt adds outside `if(AX_BUILD_TESTS)` (tests are off in the image)."""
    outside_tests = re.sub(r"if\(AX_BUILD_TESTS\).*?endif\(\)", "", cmake_lists,
                           flags=re.DOTALL)
    folders = re.findall(r"^add_subdirectory\((\S+)\)", outside_tests, re.MULTILINE)
    copied = {(src, dst) for source, src, dst in stages["build"].copies if not source}
    problems = [f"build stage does not COPY {f} {f}" for f in folders
                if (f, f) not in copied]
    for name in ("CMakeLists.txt", "CMakePresets.json"):
        if (name, "./") not in copied:
            problems.append(f"build stage does not COPY {name} to ./")
    return problems


def check_pgo_inputs(stages: dict[str, Stage], pgo_script: str) -> list[str]:
    """scripts/pgo-build.sh skips the build when the hash of what it reads is unchanged:
    the paths it hashes are the paths the build stage copies, or an edit to a copied
    file (or a hashed one the image lacks) goes unseen."""
    m = re.search(r"find (.*?) -type f", pgo_script, re.DOTALL)
    if not m:
        return ["scripts/pgo-build.sh: no `find ... -type f` of its inputs"]
    hashed = set(m.group(1).split()) - {"\\"}
    copied = {src.rstrip("/") for source, src, _ in stages["build"].copies if not source}
    return ([f"build stage copies {p}, which pgo-build.sh does not hash"
             for p in sorted(copied - hashed)] +
            [f"pgo-build.sh hashes {p}, which the build stage does not copy"
             for p in sorted(hashed - copied)])


def check_users(stages: dict[str, Stage]) -> list[str]:
    problems = []
    for target in TARGETS:
        user = next((s.user for s in chain(stages, target) if s.user), None)
        ids = (user or "").split(":")
        if not user or not all(i.isdigit() for i in ids) or any(int(i) == 0 for i in ids):
            problems.append(f"{target}: USER {user!r} is not a numeric non-root uid[:gid]")
    return problems


def check_entrypoints(stages: dict[str, Stage], binaries: dict[str, Path],
                      build_dir: Path) -> list[str]:
    """ENTRYPOINT /usr/local/bin/<target>, copied from build/release/<the path CMake
    gives that target>, and built by the build stage's --target list."""
    problems = []
    built = " ".join(stages["build"].runs) if "build" in stages else ""
    for target in TARGETS:
        entry = stages[target].entrypoint if target in stages else None
        if entry != [f"/usr/local/bin/{target}"]:
            problems.append(f"{target}: ENTRYPOINT {entry} is not [/usr/local/bin/{target}]")
            continue
        copies = copied_binaries(stages, target)
        for dst, rel in copies.items():
            name = Path(dst).name
            if dst != f"/usr/local/bin/{name}" or name not in binaries:
                problems.append(f"{target}: copies {rel} to {dst}: not a binary target")
                continue
            resolved = binaries[name].resolve()
            if not resolved.is_relative_to(build_dir.resolve()):
                problems.append(f"{name}: {resolved} is not in the build dir {build_dir}")
                continue
            actual = resolved.relative_to(build_dir.resolve()).as_posix()
            if rel != actual:
                problems.append(f"{target}: copies build/release/{rel}, CMake builds {name} "
                                f"at <build>/{actual}")
            if not re.search(rf'--targets?\b[^&]*[\s"]{re.escape(name)}(["\s]|$)', built):
                problems.append(f"{target}: the build stage does not build --target {name}")
        if entry[0] not in copies:
            problems.append(f"{target}: nothing is copied to {entry[0]}")
    return problems


def check_libraries(stages: dict[str, Stage], binaries: dict[str, Path],
                    libs_of, owner_of) -> list[str]:
    """Every library each image's binaries load comes from a package the image installs,
    and every package it installs provides one (or is a listed extra)."""
    problems = []
    for target in TARGETS:
        installed = image_packages(stages, target)
        needed = set()
        for dst in copied_binaries(stages, target):
            name = Path(dst).name
            for soname, path in libs_of(binaries[name]):
                if soname.startswith("linux-vdso"):
                    continue
                package = owner_of(path) if path else None
                if package is None:
                    problems.append(f"{name}: no package provides {soname} ({path or 'not found'})")
                    continue
                needed.add(package)
                if package not in installed:
                    problems.append(f"{target}: {name} loads {soname} from {package}, "
                                    "which the image does not install")
        for package in sorted(installed - needed - RUNTIME_EXTRAS):
            problems.append(f"{target}: installs {package}, which none of its binaries loads")
    return problems


def check_build_packages(stages: dict[str, Stage], setup: set[str]) -> list[str]:
    build = set(stages["build"].packages) if "build" in stages else set()
    problems = [f"build stage installs {p}, which scripts/setup.sh does not"
                for p in sorted(build - setup)]
    problems += [f"scripts/setup.sh installs {p}: the build stage needs it too, or list it "
                 "in SETUP_NOT_FOR_BUILD" for p in sorted(setup - build - SETUP_NOT_FOR_BUILD)]
    problems += [f"build stage installs {p}, listed as not needed for building"
                 for p in sorted(build & SETUP_NOT_FOR_BUILD)]
    return problems


# ---- fixtures and tests ------------------------------------------------------------

@pytest.fixture(scope="module")
def dockerfile():
    return parse(DOCKERFILE.read_text())


@pytest.fixture(scope="module")
def binaries(dockerfile):
    _, stages = dockerfile
    paths = {}
    for target in TARGETS:
        for rel in copied_binaries(stages, target).values():
            name = Path(rel).name
            paths[name] = built_binary(BINARY_ENV.get(name, "AX_NO_SUCH_VAR"), rel)
    return paths


def build_dir() -> Path:
    return Path(os.environ.get("AX_BUILD_DIR", REPO / "build" / "dev"))


def test_structure_and_labels(dockerfile):
    args, stages = dockerfile
    assert check_structure(stages) == []
    project = re.search(r"project\(ax\b[^)]*VERSION\s+([\d.]+)",
                        (REPO / "CMakeLists.txt").read_text()).group(1)
    assert args.get("VERSION") == project, "ARG VERSION should default to the CMake version"


def test_build_stage_copies_every_source_folder(dockerfile):
    assert check_sources(dockerfile[1], (REPO / "CMakeLists.txt").read_text()) == []
    # A folder the build adds but the image does not copy is reported.
    more = (REPO / "CMakeLists.txt").read_text() + "\nadd_subdirectory(plugins)\n"
    assert check_sources(dockerfile[1], more) == ["build stage does not COPY plugins plugins"]


def test_pgo_build_hashes_what_the_build_stage_copies(dockerfile):
    script = (REPO / "scripts" / "pgo-build.sh").read_text()
    assert check_pgo_inputs(dockerfile[1], script) == []
    more = parse(DOCKERFILE.read_text().replace("COPY probe probe",
                                                "COPY probe probe\nCOPY docs docs"))[1]
    fewer = script.replace(" tests/bench/tools ", " ")
    assert check_pgo_inputs(more, fewer) == [
        "build stage copies docs, which pgo-build.sh does not hash",
        "build stage copies tests/bench/tools, which pgo-build.sh does not hash"]
    assert check_pgo_inputs(dockerfile[1], script.replace("plan \\", "plan docs \\")) == [
        "pgo-build.sh hashes docs, which the build stage does not copy"]


def test_users_are_numeric_non_root(dockerfile):
    assert check_users(dockerfile[1]) == []


def test_entrypoints_are_built_targets(dockerfile, binaries):
    assert set(binaries) == {"ax-operator", "ax-dns", "ax-probe", "axctl"}
    assert check_entrypoints(dockerfile[1], binaries, build_dir()) == []


def test_runtime_packages_provide_every_loaded_library(dockerfile, binaries):
    problems = check_libraries(dockerfile[1], binaries, loaded_libraries, package_of)
    assert problems == [], "\n".join(problems)


def test_build_packages_are_setup_sh_build_packages(dockerfile):
    problems = check_build_packages(dockerfile[1], setup_packages(SETUP_SH.read_text()))
    assert problems == [], "\n".join(problems)


def test_every_package_exists_in_bookworm(dockerfile):
    os_release = Path("/etc/os-release").read_text()
    if "VERSION_CODENAME=bookworm" not in os_release:
        pytest.skip("the apt metadata here is not Debian bookworm's")
    _, stages = dockerfile
    names = sorted({p for s in stages.values() for p in s.packages})
    assert len(names) > 15
    missing = []
    for name in names:
        r = sh("apt-cache", "show", "--no-all-versions", name)
        if r.returncode != 0 or f"Package: {name}\n" not in r.stdout:
            missing.append(name)
    assert missing == [], (f"not in this machine's bookworm apt metadata: {missing} "
                           "(no metadata at all? apt-get update)")
    assert sh("apt-cache", "show", "libssl-no-such-package").returncode != 0


def test_checks_catch_mistakes(dockerfile, binaries):
    """A broken Dockerfile is reported by every check."""
    text = DOCKERFILE.read_text()
    broken = (text.replace(" libssl3 ", " ")                     # a library's package dropped
                  .replace("libmaxminddb0", "libmaxminddb0 libldns3")  # an unneeded one
                  .replace("EXPOSE 8081", "USER 0\nEXPOSE 8081")
                  .replace("/src/build/release/dns-server/axctl", "/src/build/release/axctl")
                  .replace("ENTRYPOINT [\"/usr/local/bin/ax-operator\"]",
                           "ENTRYPOINT [\"/usr/local/bin/operator\"]")
                  .replace("pkg-config ", "pkg-config libldns-dev clang-format ")
                  .replace("BASE_IMAGE=debian:12-slim", "BASE_IMAGE=ubuntu:24.04"))
    assert broken != text
    _, stages = parse(broken)
    libs = check_libraries(stages, binaries, loaded_libraries, package_of)
    assert any("libssl.so.3 from libssl3" in p for p in libs), libs
    assert any("installs libldns3" in p for p in libs), libs
    assert check_users(stages) == ["ax-probe: USER '0' is not a numeric non-root uid[:gid]"]
    entry = check_entrypoints(stages, binaries, build_dir())
    assert any("ax-operator: ENTRYPOINT" in p for p in entry), entry
    assert any("copies build/release/axctl" in p for p in entry), entry
    build = check_build_packages(stages, setup_packages(SETUP_SH.read_text()))
    assert any("clang-format, listed as not needed" in p for p in build), build
    assert any("libldns-dev, listed as not needed" in p for p in build), build
    assert any("not debian:12-slim" in p for p in check_structure(stages))
    setup_without_cmake = setup_packages(SETUP_SH.read_text()) - {"cmake"}
    assert check_build_packages(parse(text)[1], setup_without_cmake) == [
        "build stage installs cmake, which scripts/setup.sh does not"]
