"""The whole stack on one machine for trying the scale-out (`make run-cluster`): several backend workers
behind nginx, on PostgreSQL and Redis (docs/DEPLOY.md gives the production layout).

- Each worker is the project's start command (`python -m topic_dashboard.launcher`, i.e. `reflex run
  --env prod`) on a port of its own, one Granian process each, with Reflex's Redis state manager: a
  browser's session lives in Redis, so any worker can serve its next event, and a state change made
  on one worker reaches a socket held by another (Reflex's token manager relays it over Redis).
- Every worker is built for the proxy's address (the frontend's event socket and every bot config name
  the proxy), so the frontend is built once, by the first worker, and the others start on that build.
- nginx (Debian's) listens on the public port: the event socket's websocket upgrade, `/api/mcp/*` and
  the REST API passed through unbuffered, the frontend's fingerprinted files served from the build
  folder directly; everything else, the HTML pages with their Content-Security-Policy included, comes
  from a worker. Host and Origin are passed through unchanged: the workers' allow-lists check them.
- Rate limits, deduplication, the Topic Enabled switch and live updates hold across workers because
  they live in the database (row locks on PostgreSQL), not in a process.

`Cluster` is what `make run-cluster` runs and what tests/cluster/ starts.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from topic_dashboard.settings import Settings, get_settings

ROOT = Path(__file__).resolve().parent.parent
NGINX = "/usr/sbin/nginx"
START_TIMEOUT_SECONDS = 300.0  # the first worker builds the frontend: 35-65 s on two cores, more under load

NGINX_CONF = """\
# Written by topic_dashboard/cluster.py (make run-cluster). Production: docs/DEPLOY.md.
worker_processes 1;
daemon off;
{user}
pid {run_dir}/nginx.pid;
error_log {run_dir}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    # Which worker answered each request: the cluster test reads it to know where a browser's socket is.
    log_format upstream '$remote_addr "$request" $status upstream=$upstream_addr';
    access_log {run_dir}/nginx-access.log upstream;
    client_body_temp_path {run_dir}/nginx-tmp/body;
    proxy_temp_path {run_dir}/nginx-tmp/proxy;
    fastcgi_temp_path {run_dir}/nginx-tmp/fastcgi;
    uwsgi_temp_path {run_dir}/nginx-tmp/uwsgi;
    scgi_temp_path {run_dir}/nginx-tmp/scgi;
    client_max_body_size {max_body};
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    upstream topic_dashboard {{
        least_conn;
{servers}
    }}
    server {{
        listen {listen};
        # The frontend's fingerprinted files, straight from the build (a new build has new names).
        location /assets/ {{
            root {client_dir};
            try_files $uri @worker;
            expires 1y;
            add_header Cache-Control "public, immutable" always;
            add_header X-Content-Type-Options nosniff always;
        }}
        location / {{
            proxy_pass http://topic_dashboard;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            # Streamed answers (MCP, the chat relay) go out as they come; sockets live for hours.
            proxy_buffering off;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }}
        location @worker {{
            proxy_pass http://topic_dashboard;
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
        }}
    }}
}}
"""


def nginx_conf(*, run_dir: Path, listen: str, worker_ports: list[int], client_dir: Path, max_body_bytes: int) -> str:
    """The proxy's configuration: `listen` (host:port) in front of the workers on `worker_ports`."""
    # Started as root, nginx would run its workers as `nobody`, who cannot read the owner-only build
    # folder (make run-cluster's umask): they run as the user that runs the dashboard's workers.
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
    servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;" for port in worker_ports)
    return NGINX_CONF.format(
        run_dir=run_dir,
        user=user,
        listen=listen,
        servers=servers,
        client_dir=client_dir,
        max_body=max_body_bytes,
    )


@dataclass
class Child:
    """One process of the cluster, in a process group of its own (stopped as a group)."""

    name: str
    command: list[str]
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                self.command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except FileNotFoundError:
            return ""

    def stop(self, sig: signal.Signals = signal.SIGTERM, grace: float = 15.0) -> None:
        if self.process is None or self.process.poll() is not None and not _group_alive(self.process.pid):
            return
        _signal_group(self.process.pid, sig)
        deadline = time.monotonic() + grace
        while _group_alive(self.process.pid) and time.monotonic() < deadline:
            self.process.poll()  # reaps the child once it exits (a zombie is not alive)
            time.sleep(0.05)
        _signal_group(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def group_members(pgid: int) -> list[str]:
    """`pid command` of every live process in process group `pgid` (zombies, already dead, left out)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue  # it exited while we looked
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after the last ")".
        state, _ppid, pgrp = stat.rpartition(")")[2].split()[:3]
        if int(pgrp) == pgid and state != "Z":
            members.append(f"{entry.name} {command}")
    return members


def _group_alive(pgid: int) -> bool:
    return bool(group_members(pgid))


@dataclass
class Cluster:
    """Backend workers on `worker_ports` behind nginx on `proxy_port`, sharing one database and one Redis."""

    database_url: str
    redis_url: str
    run_dir: Path
    proxy_port: int
    worker_ports: list[int]
    data_dir: Path
    listen_host: str = "127.0.0.1"
    web_dir: Path | None = None  # the frontend build folder: the checkout's .web/ unless set
    extra_env: dict[str, str] = field(default_factory=dict)
    public_url: str | None = None  # the address in front of the proxy, when not the proxy's own
    workers: list[Child] = field(default_factory=list)
    proxy: Child | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.proxy_port}"

    def worker_url(self, index: int) -> str:
        return f"http://127.0.0.1:{self.worker_ports[index]}"

    def worker_env(self, port: int) -> dict[str, str]:
        env = {
            **os.environ,
            "TOPIC_DASHBOARD_DATABASE_URL": self.database_url,
            "TOPIC_DASHBOARD_REDIS_URL": self.redis_url,
            "TOPIC_DASHBOARD_DATA_DIR": str(self.data_dir),
            "TOPIC_DASHBOARD_PORT": str(port),
            # The address people and bots use is the proxy's: baked into the frontend (the same build
            # for every worker) and written into bots' configs.
            "TOPIC_DASHBOARD_PUBLIC_BASE_URL": self.public_base_url,
            "TOPIC_DASHBOARD_LISTEN_HOST": "127.0.0.1",  # only the proxy faces the network
            "GRANIAN_WORKERS": "1",  # one process per worker: the cluster is the set of workers
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }
        if self.web_dir is not None:
            env["REFLEX_WEB_WORKDIR"] = str(self.web_dir)
        return env

    @property
    def public_base_url(self) -> str:
        """What people and bots use: `public_url` when given (a name in front of the proxy, TLS), else
        the proxy's own address. Never this process's environment: a test process may have another
        dashboard's there."""
        if self.public_url:
            return self.public_url.rstrip("/")
        host = self.listen_host if self.listen_host not in ("0.0.0.0", "::") else "127.0.0.1"
        return f"http://{host}:{self.proxy_port}"

    def start(self, timeout: float = START_TIMEOUT_SECONDS) -> None:
        """Migrate, start the first worker (it builds the frontend when needed), then the others, then
        nginx; each waited for until it answers. Raises RuntimeError with the failing child's log."""
        from topic_dashboard.migrate import upgrade_database

        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "nginx-tmp").mkdir(exist_ok=True)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        upgrade_database(self.database_url)
        try:
            first, *rest = self.worker_ports
            self._start_worker(first)
            self._wait_ready(self.workers[0], self.worker_url(0), timeout)
            for port in rest:
                self._start_worker(port)
            for index, child in enumerate(self.workers[1:], start=1):
                self._wait_ready(child, self.worker_url(index), timeout)
            self._start_proxy()
            self._wait_ready(self.proxy, self.base_url, 30)  # type: ignore[arg-type]
        except BaseException:
            self.stop()
            raise

    def _start_worker(self, port: int) -> None:
        child = Child(
            name=f"worker-{port}",
            command=[sys.executable, "-m", "topic_dashboard.launcher"],
            env=self.worker_env(port),
            log_path=self.run_dir / f"worker-{port}.log",
        )
        child.start()
        self.workers.append(child)

    def client_dir(self) -> Path:
        return (self.web_dir or ROOT / ".web") / "build" / "client"

    def _start_proxy(self) -> None:
        settings = get_settings()
        conf = self.run_dir / "nginx.conf"
        conf.write_text(
            nginx_conf(
                run_dir=self.run_dir,
                listen=f"{self.listen_host}:{self.proxy_port}",
                worker_ports=self.worker_ports,
                client_dir=self.client_dir().resolve(),
                max_body_bytes=max(settings.rest_max_body_bytes, settings.mcp_max_body_bytes),
            ),
            encoding="utf-8",
        )
        self.proxy = Child(
            name="nginx",
            command=[nginx_binary(), "-c", str(conf), "-p", str(self.run_dir)],
            env=dict(os.environ),
            log_path=self.run_dir / "nginx.log",
        )
        self.proxy.start()

    def _wait_ready(self, child: Child, base_url: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if not child.running:
                raise RuntimeError(f"{child.name} exited:\n{child.log_tail()}")
            try:
                health = httpx.get(base_url + "/api/health", timeout=5)
                page = httpx.get(base_url + "/", timeout=5)
                if health.status_code == 200 and page.headers.get("content-type", "").startswith("text/html"):
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{child.name} did not answer {base_url} in {timeout:.0f} s:\n{child.log_tail()}")
            time.sleep(0.2)

    def stop(self, grace: float = 15.0) -> None:
        """nginx first (no new requests), then every worker at once; SIGKILL for what outlives the grace."""
        if self.proxy is not None:
            self.proxy.stop(grace=5.0)
        with ThreadPoolExecutor(max_workers=max(1, len(self.workers))) as pool:
            list(pool.map(lambda child: child.stop(grace=grace), self.workers))


def sa_database_name(url: str) -> str:
    import sqlalchemy as sa

    return str(sa.make_url(url).database)


def nginx_binary() -> str:
    found = shutil.which("nginx") or (NGINX if Path(NGINX).exists() else None)
    if found is None:
        raise RuntimeError("nginx is not installed: scripts/run-cluster.sh installs Debian's nginx")
    return found


def from_settings(settings: Settings, run_dir: Path) -> Cluster:
    """The cluster `make run-cluster` starts: TOPIC_DASHBOARD_CLUSTER_WORKERS workers from
    TOPIC_DASHBOARD_CLUSTER_FIRST_PORT on, nginx on TOPIC_DASHBOARD_PORT."""
    if not settings.database_url or not settings.database_url.startswith("postgresql"):
        raise SystemExit("run-cluster needs PostgreSQL: set TOPIC_DASHBOARD_DATABASE_URL=postgresql://...")
    if not settings.redis_url:
        raise SystemExit("run-cluster needs Redis: set TOPIC_DASHBOARD_REDIS_URL=redis://...")
    first = settings.cluster_first_port
    return Cluster(
        database_url=settings.database_url,
        redis_url=settings.redis_url,
        run_dir=run_dir,
        proxy_port=settings.port,
        worker_ports=[first + n for n in range(settings.cluster_workers)],
        data_dir=settings.data_dir,
        listen_host=settings.listen_host,
        # Set on purpose (a name and TLS in front of nginx): every worker is built for it; unset, the proxy.
        public_url=settings.public_base_url if "public_base_url" in settings.model_fields_set else None,
    )


def ensure_database(url: str) -> bool:
    """Create the PostgreSQL database `url` names when it does not exist yet (True: created)."""
    import sqlalchemy as sa

    from topic_dashboard.db import create_db_engine

    target = sa.make_url(url)
    engine = create_db_engine(target.set(database="postgres").render_as_string(hide_password=False))
    admin = engine.execution_options(isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            exists = connection.execute(
                sa.text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": target.database}
            ).first()
            if exists:
                return False
            connection.execute(sa.text(f'CREATE DATABASE "{target.database}"'))
            return True
    finally:
        engine.dispose()


def main() -> None:
    settings = get_settings()
    if sys.argv[1:] == ["ensure-database"]:
        if not settings.database_url or not settings.database_url.startswith("postgresql"):
            raise SystemExit("run-cluster needs PostgreSQL: set TOPIC_DASHBOARD_DATABASE_URL=postgresql://...")
        if ensure_database(settings.database_url):
            print(f"  created the database {sa_database_name(settings.database_url)}")
        return
    cluster = from_settings(settings, ROOT / ".cluster")
    stopping = False

    def _stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    print(
        f"  starting {len(cluster.worker_ports)} workers on ports {', '.join(map(str, cluster.worker_ports))} "
        f"(logs in .cluster/), then nginx on :{cluster.proxy_port}",
        flush=True,
    )
    cluster.start()
    host = urlsplit(cluster.public_base_url).netloc
    print(f"  the cluster is up: {cluster.public_base_url}/ (nginx on {host}); Ctrl-C stops it", flush=True)
    try:
        while not stopping:
            for child in [cluster.proxy, *cluster.workers]:
                if child is not None and not child.running:
                    print(f"  {child.name} exited; stopping the cluster:\n{child.log_tail()}", file=sys.stderr)
                    stopping = True
            time.sleep(0.5)
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
