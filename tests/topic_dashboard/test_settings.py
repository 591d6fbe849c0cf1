from pathlib import Path

import pytest

from topic_dashboard.settings import ENV_PREFIX, Settings


def test_defaults_point_at_an_sqlite_file_in_the_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(ENV_PREFIX + "DATABASE_URL", raising=False)
    monkeypatch.setenv(ENV_PREFIX + "DATA_DIR", str(tmp_path))
    settings = Settings(_env_file=None)
    assert settings.effective_database_url == f"sqlite:///{tmp_path.resolve()}/topic_dashboard.db"
    assert settings.admin_token is None  # no default secrets
    assert settings.redis_url is None


def test_every_value_comes_from_the_prefixed_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_PREFIX + "DATABASE_URL", "postgresql://u@db:5432/td")
    monkeypatch.setenv(ENV_PREFIX + "REDIS_URL", "redis://cache:6379/0")
    monkeypatch.setenv(ENV_PREFIX + "PUBLIC_BASE_URL", "http://host.docker.internal:8000/")
    monkeypatch.setenv(ENV_PREFIX + "ALLOWED_HOSTS", "dashboard.lan:*, 10.0.0.5:8000")
    monkeypatch.setenv(ENV_PREFIX + "ALLOWED_ORIGINS", "http://dashboard.lan:*")
    monkeypatch.setenv(ENV_PREFIX + "ADMIN_TOKEN", "s3cret-master-key")
    settings = Settings(_env_file=None)
    assert settings.effective_database_url == "postgresql://u@db:5432/td"
    assert settings.redis_url == "redis://cache:6379/0"
    assert settings.mcp_topic_url == "http://host.docker.internal:8000/api/mcp/topic"
    assert settings.allowed_hosts == ["dashboard.lan:*", "10.0.0.5:8000"]
    assert settings.allowed_origins == ["http://dashboard.lan:*"]
    assert settings.admin_token is not None and settings.admin_token.get_secret_value() == "s3cret-master-key"
    assert "s3cret" not in repr(settings)


def test_rxconfig_reads_the_same_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import importlib

    from topic_dashboard.settings import reset_settings_cache

    monkeypatch.setenv(ENV_PREFIX + "DATABASE_URL", f"sqlite:///{tmp_path}/x.db")
    monkeypatch.setenv(ENV_PREFIX + "PORT", "3917")
    reset_settings_cache()
    try:
        import rxconfig

        config = importlib.reload(rxconfig).config
        assert config.db_url == f"sqlite:///{tmp_path}/x.db"
        assert config.frontend_port == 3917 and config.backend_port == 3917
    finally:
        monkeypatch.undo()
        reset_settings_cache()
        importlib.reload(rxconfig)


def test_the_public_url_follows_the_port_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by running the journeys against a dashboard started with TOPIC_DASHBOARD_PORT=3311: its
    page never came alive (the event socket pointed at :3000) and bot configs named :3000."""
    from topic_dashboard.settings import Settings

    monkeypatch.delenv("TOPIC_DASHBOARD_PUBLIC_BASE_URL", raising=False)
    monkeypatch.setenv("TOPIC_DASHBOARD_PORT", "3311")
    assert Settings().public_base_url == "http://127.0.0.1:3311"
    monkeypatch.setenv("TOPIC_DASHBOARD_PUBLIC_BASE_URL", "https://dash.example")
    assert Settings().public_base_url == "https://dash.example"


def test_a_read_begun_before_a_reset_never_puts_the_old_environment_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """A live server's thread reading settings while a test (or an operator's reload) changes the environment
    must not put the settings it read from the old environment back into the cache after the reset."""
    import threading

    from topic_dashboard import settings as settings_module

    name = ENV_PREFIX + "PUBLIC_BASE_URL"
    monkeypatch.setenv(name, "http://127.0.0.1:40477")
    settings_module.reset_settings_cache()
    read_started, may_finish = threading.Event(), threading.Event()
    real = settings_module.Settings

    class SlowSettings(real):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            if threading.current_thread().name == "slow-reader":
                read_started.set()
                may_finish.wait(5)

    monkeypatch.setattr(settings_module, "Settings", SlowSettings)
    stale: list[str] = []
    reader = threading.Thread(
        target=lambda: stale.append(settings_module.get_settings().public_base_url), name="slow-reader"
    )
    reader.start()
    assert read_started.wait(5)
    monkeypatch.setenv(name, "http://[::1]:3000")
    settings_module.reset_settings_cache()
    may_finish.set()
    reader.join(5)
    assert stale == ["http://127.0.0.1:40477"]  # the slow reader read the old environment
    assert settings_module.get_settings().public_base_url == "http://[::1]:3000"
    settings_module.reset_settings_cache()
