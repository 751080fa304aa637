"""Static checks of deploy/docker and deploy/k8s (no Docker engine or cluster runs here):
the YAML parses and is yamllint-clean, every `ce-filter` subcommand, flag and CE_FILTER_*
variable they use exists in the real CLI parser, and the pieces name each other right."""

from __future__ import annotations

import argparse
import base64
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO

yaml = pytest.importorskip("yaml", reason="PyYAML not installed")

DEPLOY = REPO / "deploy"
COMPOSE = DEPLOY / "docker" / "docker-compose.yml"
DOCKERFILE = DEPLOY / "docker" / "Dockerfile"
K8S = DEPLOY / "k8s"
ENV_PREFIX = "CE_FILTER_"


# ------------------------------------------------------------------ the real CLI


def subparser(name: str) -> argparse.ArgumentParser:
    from ce_filter.cli import build_parser

    ap = build_parser()
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    assert name in sub.choices, f"`ce-filter {name}` is not a subcommand"
    return sub.choices[name]


def env_vars(cmd: str) -> set[str]:
    """The CE_FILTER_* variables `ce-filter CMD` reads: the [env ...] of its options."""
    names = set()
    for a in subparser(cmd)._actions:
        m = re.search(r"\[env (CE_FILTER_\w+)\]", a.help or "")
        if m:
            names.add(m.group(1))
    return names


REQUIRED_AT_RUNTIME = {"worker": ("input_topic", "output_topic", "bootstrap_servers")}


def check_command(argv: list[str], env: dict[str, str], monkeypatch: Any, where: str) -> argparse.Namespace:
    """Parse ``ce-filter ARGV`` with ``env`` as the only CE_FILTER_* variables, as the
    container would; fail on an unknown subcommand, flag, variable or bad value."""
    from ce_filter.cli import build_parser

    assert argv, f"{where}: no command"
    cmd = argv[0]
    unknown = {k for k in env if k.startswith(ENV_PREFIX)} - env_vars(cmd)
    assert not unknown, f"{where}: `ce-filter {cmd}` has no variable(s) {sorted(unknown)}"
    import os

    for k in [k for k in os.environ if k.startswith(ENV_PREFIX)]:
        monkeypatch.delenv(k)
    for k, v in env.items():
        monkeypatch.setenv(k, str(v))
    try:
        ns = build_parser().parse_args(argv)  # env defaults are read when the parser is built
    except SystemExit as e:
        pytest.fail(f"{where}: `ce-filter {shlex.join(argv)}` does not parse (exit {e.code})")
    except ValueError as e:  # a variable's value of the wrong type fails when the parser is built
        pytest.fail(f"{where}: a CE_FILTER_* value does not convert: {e}")
    finally:
        for k in env:
            monkeypatch.delenv(k)
    for dest in REQUIRED_AT_RUNTIME.get(cmd, ()):
        assert getattr(ns, dest), f"{where}: {cmd} needs {dest} (flag or {ENV_PREFIX}{dest.upper()})"
    return ns


def test_checker_catches_mistakes(monkeypatch):
    with pytest.raises(pytest.fail.Exception):
        check_command(["worker", "--no-such-flag"], {}, monkeypatch, "t")
    with pytest.raises(AssertionError):
        check_command(["worker"], {"CE_FILTER_NO_SUCH_SETTING": "1"}, monkeypatch, "t")
    with pytest.raises(AssertionError):  # topics missing
        check_command(["worker"], {"CE_FILTER_BOOTSTRAP_SERVERS": "k:9092"}, monkeypatch, "t")
    with pytest.raises(pytest.fail.Exception):  # a bad value of an int option fails at parse
        check_command(["worker"], {"CE_FILTER_MAX_POLL_RECORDS": "many"}, monkeypatch, "t")


# ------------------------------------------------------------------ yamllint


def test_yamllint_clean():
    pytest.importorskip("yamllint", reason="yamllint not installed (pip install yamllint)")
    r = subprocess.run(
        [sys.executable, "-m", "yamllint", "-s", "-c", str(DEPLOY / ".yamllint"), str(DEPLOY)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_yaml_parses():
    files = sorted(DEPLOY.rglob("*.yml")) + sorted(DEPLOY.rglob("*.yaml"))
    assert len(files) >= 7
    for f in files:
        docs = list(yaml.safe_load_all(f.read_text(encoding="utf-8")))
        assert docs and all(isinstance(d, dict) for d in docs), f


# ------------------------------------------------------------------ docker


def interpolate(value: Any) -> Any:
    """Compose's ${VAR:-default} / ${VAR-default} / ${VAR} with no variables set; $$ -> $."""
    if isinstance(value, dict):
        return {k: interpolate(v) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v) for v in value]
    if not isinstance(value, str):
        return value
    value = re.sub(r"(?<!\$)\$\{(\w+)(?::?-([^}]*))?\}", lambda m: m.group(2) or "", value)
    return value.replace("$$", "$")


def env_dict(env: Any) -> dict[str, str]:
    if isinstance(env, list):
        return dict(e.split("=", 1) for e in env)
    return {k: "" if v is None else str(v) for k, v in (env or {}).items()}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return interpolate(yaml.safe_load(COMPOSE.read_text(encoding="utf-8")))


def test_compose_services_and_commands(compose, monkeypatch):
    services = compose["services"]
    assert {"kafka", "topics", "worker", "crawler"} <= set(services)
    ours = {n: s for n, s in services.items() if str(s.get("image", "")).startswith("ce-filter")}
    assert set(ours) == {"worker", "crawler"}
    for name, svc in ours.items():
        build = svc["build"]
        assert (COMPOSE.parent / build["context"]).resolve() == REPO
        assert (REPO / build["dockerfile"]).resolve() == DOCKERFILE
        check_command(svc["command"], env_dict(svc.get("environment")), monkeypatch, f"compose {name}")
        assert svc["depends_on"]["topics"]["condition"] == "service_completed_successfully"

    worker = services["worker"]
    assert worker["command"][0] == "worker"
    assert "container_name" not in worker and "ports" not in worker, "--scale worker=N needs neither"
    wenv = env_dict(worker["environment"])
    assert wenv["CE_FILTER_BOOTSTRAP_SERVERS"] == "kafka:9092"
    port = wenv["CE_FILTER_METRICS_PORT"]  # metrics inside the compose network, probed by the healthcheck
    assert worker["expose"] == [port] and worker["labels"]["prometheus.io/port"] == port
    assert worker["labels"]["prometheus.io/scrape"] == "true"
    assert f"127.0.0.1:{port}/healthz" in " ".join(worker["healthcheck"]["test"])

    crawler = services["crawler"]
    ns = check_command(crawler["command"], env_dict(crawler["environment"]), monkeypatch, "compose crawler")
    assert ns.url_file and ns.to == [f"kafka-raw:{wenv['CE_FILTER_INPUT_TOPIC']}"]  # it feeds the workers
    seeds = [v.split(":")[0] for v in crawler["volumes"]]
    assert all((COMPOSE.parent / s).exists() for s in seeds)


def test_compose_kafka_is_kraft_and_topics_match(compose):
    services = compose["services"]
    kafka = services["kafka"]
    assert kafka["image"].startswith("apache/kafka:")
    kenv = env_dict(kafka["environment"])
    assert set(kenv["KAFKA_PROCESS_ROLES"].split(",")) == {"broker", "controller"}
    assert not any("ZOOKEEPER" in k for k in kenv)
    assert len(base64.urlsafe_b64decode(kenv["CLUSTER_ID"] + "==")) == 16, "KRaft cluster id: base64 UUID"
    assert "kafka:9092" in kenv["KAFKA_ADVERTISED_LISTENERS"]
    assert services["topics"]["depends_on"]["kafka"]["condition"] == "service_healthy"

    init = services["topics"]
    ienv, wenv = env_dict(init["environment"]), env_dict(services["worker"]["environment"])
    script = "\n".join(init["command"])
    for var in ("CE_FILTER_INPUT_TOPIC", "CE_FILTER_OUTPUT_TOPIC", "CE_FILTER_DEAD_LETTER_TOPIC"):
        assert ienv[var] == wenv[var], f"topic-init and worker disagree on {var}"
        assert f'"${var}"' in script, f"topic-init does not create {var}"
    assert wenv["CE_FILTER_DEAD_LETTER_TOPIC"] == wenv["CE_FILTER_INPUT_TOPIC"] + ".dlq"
    assert "--if-not-exists" in script and int(ienv["PARTITIONS"]) >= 1


def test_dockerfile():
    text = DOCKERFILE.read_text(encoding="utf-8")
    joined = re.sub(r"\\\n", " ", text)  # continuation lines
    lines = [ln.strip() for ln in joined.splitlines() if ln.strip() and not ln.startswith("#")]
    froms = [ln.split()[1] for ln in lines if ln.startswith("FROM ")]
    assert froms and all(re.match(r"python:\$\{PYTHON_VERSION\}-slim$|python:[\d.]+-slim$", f) for f in froms)
    user = [ln.split()[1] for ln in lines if ln.startswith("USER ")]
    assert user and user[-1].split(":")[0] not in ("root", "0"), "runs as a non-root user"
    assert [ln for ln in lines if ln.startswith("ENTRYPOINT")] == ['ENTRYPOINT ["ce-filter"]']
    # every COPY source exists and is let through the .dockerignore
    ignore = (DOCKERFILE.parent / "Dockerfile.dockerignore").read_text().splitlines()
    allowed = {ln[1:].rstrip("/") for ln in ignore if ln.startswith("!")}
    for ln in lines:
        if ln.startswith("COPY ") and "--from=" not in ln:
            for src in ln.split()[1:-1]:
                assert (REPO / src).exists(), src
                assert src.rstrip("/") in allowed, f"{src} is excluded by the .dockerignore"
    # the model is inside the package: shipped as package data
    pyproject = (REPO / "pyproject.toml").read_text()
    assert '"ce_filter.models" = ["*.json"]' in pyproject
    assert list((REPO / "ce_filter" / "models").glob("*.json"))
    # the extras the image runs (worker, crawl, warc) are installed, not only the core
    assert re.search(r'pip install [^\n]*"ce-filter\[warc,kafka,crawl\]"', joined)
    assert "import ce_filter; ce_filter.Extractor()" in text, "the image build loads the model once"


# ------------------------------------------------------------------ k8s


@pytest.fixture(scope="module")
def k8s() -> dict[str, dict[str, Any]]:
    kust = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    out: dict[str, dict[str, Any]] = {}
    for res in kust["resources"]:
        assert (K8S / res).exists(), res
        for doc in yaml.safe_load_all((K8S / res).read_text()):
            out[doc["kind"]] = doc
    return out


def test_k8s_worker_deployment(k8s, monkeypatch):
    dep, cm = k8s["Deployment"], k8s["ConfigMap"]
    spec = dep["spec"]
    labels = spec["template"]["metadata"]["labels"]
    assert spec["selector"]["matchLabels"].items() <= labels.items()
    pod = spec["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    (c,) = pod["containers"]
    refs = [e["configMapRef"]["name"] for e in c["envFrom"] if "configMapRef" in e]
    assert refs == [cm["metadata"]["name"]]
    env = dict(cm["data"])
    env.update({e["name"]: e.get("value", "x") for e in c.get("env", [])})
    check_command(c["args"], env, monkeypatch, "k8s worker")
    assert c["resources"]["requests"]["cpu"] == c["resources"]["limits"]["cpu"] == "1"
    (port,) = c["ports"]  # the metrics endpoint: probes and Prometheus' annotations use it
    assert port["containerPort"] == int(env["CE_FILTER_METRICS_PORT"])
    probes = {"startupProbe": "/healthz", "livenessProbe": "/healthz", "readinessProbe": "/readyz"}
    for probe, path in probes.items():
        assert c[probe]["httpGet"] == {"path": path, "port": port["name"]}, probe
    notes = spec["template"]["metadata"]["annotations"]
    assert notes["prometheus.io/scrape"] == "true"
    assert notes["prometheus.io/port"] == str(port["containerPort"])
    assert pod["terminationGracePeriodSeconds"] >= 60

    secret = yaml.safe_load((K8S / "secret.example.yaml").read_text())
    assert any(e.get("secretRef", {}).get("name") == secret["metadata"]["name"] for e in c["envFrom"])
    unknown = set(secret["stringData"]) - env_vars("worker")
    assert not unknown, f"secret keys that are no worker variable: {unknown}"


def test_k8s_scaledobject_targets_the_worker(k8s):
    so, dep, cm, job = k8s["ScaledObject"], k8s["Deployment"], k8s["ConfigMap"], k8s["Job"]
    assert so["apiVersion"].startswith("keda.sh/")
    ref = so["spec"]["scaleTargetRef"]
    assert ref["name"] == dep["metadata"]["name"] and ref.get("kind", "Deployment") == "Deployment"
    (trig,) = so["spec"]["triggers"]
    assert trig["type"] == "kafka"
    md, data = trig["metadata"], cm["data"]
    assert md["consumerGroup"] == data["CE_FILTER_GROUP_ID"]
    assert md["topic"] == data["CE_FILTER_INPUT_TOPIC"]
    assert md["bootstrapServers"] == data["CE_FILTER_BOOTSTRAP_SERVERS"]
    assert md["offsetResetPolicy"] == data["CE_FILTER_AUTO_OFFSET_RESET"]
    assert all(isinstance(v, str) for v in md.values()), "KEDA trigger metadata values are strings"
    assert int(md["lagThreshold"]) > 0
    partitions = int(next(e["value"] for e in job["spec"]["template"]["spec"]["containers"][0]["env"]
                          if e["name"] == "PARTITIONS"))  # fmt: skip
    assert 1 <= so["spec"]["minReplicaCount"] <= so["spec"]["maxReplicaCount"] <= partitions

    auth = list(yaml.safe_load_all((K8S / "keda-auth.example.yaml").read_text()))
    ta = next(d for d in auth if d["kind"] == "TriggerAuthentication")
    assert {p["parameter"] for p in ta["spec"]["secretTargetRef"]} >= {"sasl", "username", "password"}


def test_k8s_topics_job_makes_the_workers_topics(k8s):
    job, cm = k8s["Job"], k8s["ConfigMap"]
    (c,) = job["spec"]["template"]["spec"]["containers"]
    assert c["image"].startswith("apache/kafka:")
    assert c["envFrom"][0]["configMapRef"]["name"] == cm["metadata"]["name"]
    script = "\n".join(c["args"])
    for var in ("CE_FILTER_INPUT_TOPIC", "CE_FILTER_OUTPUT_TOPIC", "CE_FILTER_DEAD_LETTER_TOPIC"):
        assert var in cm["data"] and f'"${var}"' in script
    assert '"$CE_FILTER_BOOTSTRAP_SERVERS"' in script and "--if-not-exists" in script


def test_k8s_core_resources_against_the_kubernetes_schemas():
    kv = pytest.importorskip(
        "kubernetes_validate", reason="kubernetes-validate not installed: schema check of k8s files skipped"
    )
    checked = 0
    for f in sorted(K8S.glob("*.yaml")):
        for doc in yaml.safe_load_all(f.read_text()):
            if "." in doc["apiVersion"].split("/")[0]:
                continue  # CRDs (KEDA, kustomize): no schema bundled; checked structurally above
            kv.validate(doc, kv.latest_version(), strict=True)  # raises on an unknown or mistyped field
            checked += 1
    assert checked >= 5  # ConfigMap, Deployment, Job, two Secrets


def test_systemd_unit(monkeypatch):
    import configparser

    unit_path = DEPLOY / "systemd" / "ce-filter-worker@.service"
    unit = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    unit.optionxform = str  # keys are case-sensitive
    unit.read_string(unit_path.read_text())
    svc = unit["Service"]
    argv = shlex.split(svc["ExecStart"])
    assert Path(argv[0]).name == "ce-filter"
    env = {}
    for line in (DEPLOY / "systemd" / "worker.env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            k, _, v = line.partition("=")
            env[k] = v
    k, _, v = svc["Environment"].partition("=")
    env[k] = v
    check_command(argv[1:], env, monkeypatch, "systemd worker")
    assert svc["KillSignal"] == "SIGTERM" and svc["Restart"] == "on-failure" and svc["User"] != "root"
