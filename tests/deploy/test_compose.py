"""compose.yaml, checked without Docker (this machine has no engine): against the Compose
specification's JSON schema, check-jsonschema's bundled copy of it, and for each promise of the
production topology (issue 27): nginx in front with the same configuration file as ``make
cluster``, two app processes or more, health-checked PostgreSQL and Redis, migrations run once by a
one-shot service the app waits for, secrets from the environment, no container running as root,
restart policies, forwarded headers believed from the proxy's network only, and the static files
nginx serves built by the image."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from deploy.cluster import NGINX_CONF
from tests.deploy.nginxconf import find, parse, value

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "compose.yaml"
DOCKERFILE = ROOT / "Dockerfile"
CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")
#: The images the operator does not build: official ones, each running as its own user.
OFFICIAL = {"proxy": "nginx:", "db": "postgres:", "redis": "redis:"}
ONE_SHOT = {"migrate", "static"}


def check_schema(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CHECK_JSONSCHEMA), "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = compose["services"]
    return found


def ours(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services that run the image built from the Dockerfile."""
    return {name: s for name, s in services(compose).items() if s.get("build") == "."}


def apps(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The app processes: the image's own command (the Dockerfile's CMD, ``app.serve``)."""
    return {name: s for name, s in ours(compose).items() if "command" not in s}


def dockerfile_instructions(name: str) -> list[str]:
    lines = DOCKERFILE.read_text().replace("\\\n", " ").splitlines()  # continued lines joined
    return [line.split(None, 1)[1] for line in lines if line.startswith(f"{name} ")]


def test_the_file_fits_the_compose_specification() -> None:
    done = check_schema(COMPOSE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_refuses_a_file_that_does_not_fit(tmp_path: Path) -> None:
    """The check above can fail: a condition compose does not know is refused."""
    text = COMPOSE.read_text()
    broken = text.replace("service_completed_successfully", "service_finished", 1)
    assert broken != text
    (tmp_path / "compose.yaml").write_text(broken)
    done = check_schema(tmp_path / "compose.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "service_finished" in done.stdout + done.stderr


def test_nginx_is_in_front_with_the_clusters_configuration_file(compose: dict[str, Any]) -> None:
    proxy = services(compose)["proxy"]
    assert proxy["image"].startswith("nginx:")
    mounts = {m.split(":")[1]: m.split(":")[0] for m in proxy["volumes"]}
    # The very file deploy/cluster.py gives Debian's nginx, as the official image's main file.
    assert ROOT / mounts["/etc/nginx/nginx.conf"] == NGINX_CONF
    # Each file it includes is mounted beside it, from deploy/compose/.
    main = parse(NGINX_CONF.read_text())
    http = find(main, "http").block
    includes = {
        *(d.args[0] for d in find(http, "server").block if d.name == "include"),
        *(d.args[0] for d in find(http, "upstream").block if d.name == "include"),
    }
    assert includes == {"listen.conf", "upstreams.conf"}
    for name in includes:
        assert mounts[f"/etc/nginx/{name}"] == f"./deploy/compose/{name}"
    # The one published port is nginx's, on the port it listens on.
    published = {name: s["ports"] for name, s in services(compose).items() if "ports" in s}
    assert list(published) == ["proxy"]
    listen = value(parse((ROOT / "deploy/compose/listen.conf").read_text()), "listen")
    assert [port.rsplit(":", 1)[1] for port in proxy["ports"]] == listen


def test_at_least_two_app_processes_are_behind_it(compose: dict[str, Any]) -> None:
    names = sorted(apps(compose))
    assert len(names) >= 2, names
    upstreams = parse((ROOT / "deploy/compose/upstreams.conf").read_text())
    assert sorted(d.args[0] for d in upstreams if d.name == "server") == [
        f"{name}:8000" for name in names
    ]
    assert dockerfile_instructions("CMD") == ['["python", "-m", "app.serve"]']
    proxy = services(compose)["proxy"]
    for name in names:
        assert "healthcheck" in apps(compose)[name]
        # nginx resolves the apps' names when it starts: they are up by then.
        assert proxy["depends_on"][name] == {"condition": "service_healthy"}


def test_nginx_looks_the_apps_addresses_up_again(compose: dict[str, Any]) -> None:
    """A recreated app container has a new address: nginx asks Docker's DNS again (``resolve``,
    which needs the shared zone and nginx 1.27.3 or later), rather than keep the address it
    found at its start."""
    upstreams = parse((ROOT / "deploy/compose/upstreams.conf").read_text())
    servers = [d for d in upstreams if d.name == "server"]
    assert servers and all("resolve" in d.args for d in servers)
    assert value(upstreams, "resolver")[0] == "127.0.0.11"  # Docker's embedded DNS
    http = find(parse(NGINX_CONF.read_text()), "http").block
    assert find(find(http, "upstream", "hexmoot_app").block, "zone").args
    version = services(compose)["proxy"]["image"].removeprefix("nginx:")
    assert tuple(int(part) for part in version.split(".")) >= (1, 27, 3), version


def test_postgresql_and_redis_are_health_checked(compose: dict[str, Any]) -> None:
    for name in ("db", "redis"):
        service = services(compose)[name]
        assert service["image"].startswith(OFFICIAL[name])
        assert service["healthcheck"]["test"][0] == "CMD"
    for name, service in apps(compose).items():
        for dependency in ("db", "redis"):
            assert service["depends_on"][dependency] == {"condition": "service_healthy"}, name


def test_migrations_run_once_by_a_one_shot_service_the_apps_wait_for(
    compose: dict[str, Any],
) -> None:
    migrate = services(compose)["migrate"]
    assert migrate["command"] == ["alembic", "upgrade", "head"]
    assert migrate["restart"] == "no"
    assert migrate["depends_on"]["db"] == {"condition": "service_healthy"}
    for name, service in apps(compose).items():
        assert service["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
        assert "alembic" not in str(service), name
    # ... and no replica migrates by itself when it starts.
    assert "alembic" not in " ".join(
        dockerfile_instructions("CMD") + dockerfile_instructions("ENTRYPOINT")
    )
    others = {name: s for name, s in services(compose).items() if name != "migrate"}
    assert "alembic" not in str(others)


def test_secrets_are_required_from_the_environment(compose: dict[str, Any]) -> None:
    required = re.compile(r"\$\{(SECRET_KEY|POSTGRES_PASSWORD):\?[^}]+\}")
    db = services(compose)["db"]["environment"]
    assert re.fullmatch(required, db["POSTGRES_PASSWORD"])
    for name, service in ours(compose).items():
        environment = service.get("environment", {})
        if "DATABASE_URL" in environment:
            url = environment["DATABASE_URL"]
            password = re.fullmatch(r"postgresql\+asyncpg://hexmoot:(.+)@db:5432/hexmoot", url)
            assert password and re.fullmatch(required, password[1]), (name, url)
    for name, service in apps(compose).items():
        secret = service["environment"]["SECRET_KEY"]
        assert re.fullmatch(required, secret) and secret.startswith("${SECRET_KEY"), name
    # No secret is written in the file itself.
    for line in COMPOSE.read_text().splitlines():
        if re.search(r"(PASSWORD|SECRET)\w*:\s*\S", line) and not line.lstrip().startswith("#"):
            assert required.search(line), line


def test_no_container_runs_as_root(compose: dict[str, Any]) -> None:
    users = dockerfile_instructions("USER")
    assert users and users[-1].split(":")[0] not in ("root", "0"), users
    for name, service in services(compose).items():
        # Ours runs as the Dockerfile's user; the official images as their own (postgres and redis
        # drop to theirs, nginx's workers run as nginx): no service overrides either.
        assert "user" not in service, name
        if name not in ours(compose):
            assert service["image"].startswith(OFFICIAL[name]), name


def test_every_service_has_its_restart_policy(compose: dict[str, Any]) -> None:
    for name, service in services(compose).items():
        if name in ONE_SHOT:  # done once per `up`: a restart would run it again
            assert service["restart"] == "no", name
        else:
            assert service["restart"] in ("always", "unless-stopped", "on-failure"), name


def test_the_apps_believe_forwarded_headers_from_the_proxys_network_only(
    compose: dict[str, Any],
) -> None:
    (subnet,) = [c["subnet"] for c in compose["networks"]["proxy"]["ipam"]["config"]]
    members = {name for name, s in services(compose).items() if "proxy" in s.get("networks", [])}
    assert members == {"proxy", *apps(compose)}
    for name, service in apps(compose).items():
        assert service["environment"]["FORWARDED_ALLOW_IPS"] == subnet, name
    # PostgreSQL and Redis are on a network of their own, which reaches nothing outside.
    assert compose["networks"]["data"]["internal"] is True
    for name in ("db", "redis"):
        assert services(compose)[name]["networks"] == ["data"]


def test_nginx_serves_the_static_files_the_image_builds(compose: dict[str, Any]) -> None:
    static = services(compose)["static"]
    *command, target = static["command"]
    assert command == ["python", "-m", "app.static_files", "build"]
    assert static["volumes"] == [f"public:{target}"]
    proxy = services(compose)["proxy"]
    assert proxy["depends_on"]["static"] == {"condition": "service_completed_successfully"}
    # nginx's prefix holds the volume where nginx.conf's `root` (relative to the prefix) says.
    prefix = proxy["command"][proxy["command"].index("-p") + 1]
    root = value(find(find(parse(NGINX_CONF.read_text()), "http").block, "server").block, "root")
    assert f"public:{prefix}{root[0]}:ro" in proxy["volumes"]
    # The image holds the same copy, in a directory of its user's (a new volume starts as it).
    assert f"python -m app.static_files build {target}" in dockerfile_instructions("RUN")
    assert any(f"chown hexmoot:hexmoot {target}" in run for run in dockerfile_instructions("RUN"))
