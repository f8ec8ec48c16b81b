"""Downloading the release asset (``fetch-pack``, ``run``): digests checked, private assets through
the API with the token, no token on redirects, the download folder cleaned up, disk and
destination errors named.
"""

from __future__ import annotations

import pytest

from fakegithub import TEMPLATE, UPSTREAM
from github_world import TOKEN, checkout, cli

PACK = "PyTorch.ExecuTorch.1.5.1.pack"


def fetch(capsys, dest):
    return cli(capsys, "fetch-pack", "--version", "1.5.1", "--output-dir", str(dest), "--upstream", f"github:{UPSTREAM}")


def _pack_world(world):
    from fakegithub import add_sample_release
    from packgen import DEMO_OPS, make_pack
    # the operators the sample template selects: run verifies the pack against the template too
    pack = make_pack(world.tmp / "packs", version="1.5.1", operators=DEMO_OPS)
    world.repo(UPSTREAM).releases = [r for r in world.repo(UPSTREAM).releases if r["tag_name"] != "v1.5.1"]
    add_sample_release(world, "v1.5.1", created_at="2026-09-01T00:00:00Z",
                       assets={"PyTorch.ExecuTorch.1.5.1.pack": pack.read_bytes()})
    return pack


def pr_body_of(w):
    pulls = w.open_pulls(TEMPLATE)
    assert len(pulls) == 1
    return pulls[0]


@pytest.fixture
def objects_host():
    from fakegithub import FakeGitHub
    host = FakeGitHub()
    host.start()
    yield host
    host.stop()


def test_a_digest_that_is_not_hex_is_refused_before_downloading(fake, tmp_path, capsys):
    fake.add_release(UPSTREAM, "v1.5.1", assets={PACK: b"PK..."}, digest={PACK: "sha256:" + "z" * 64})
    code, out = fetch(capsys, tmp_path / "d")
    assert code == 2 and "unsupported digest" in out.err and "does not match" not in out.err
    assert fake.count("GET", "/download/") == 0


def test_an_uppercase_digest_is_accepted(fake, tmp_path):
    import hashlib

    from bot.github.assets import download_asset
    from bot.github.releases import Release
    data = b"PK" + b"y" * 100
    rel = fake.add_release(UPSTREAM, "v1.5.1", assets={PACK: data},
                           digest={PACK: "SHA256:" + hashlib.sha256(data).hexdigest().upper()})
    path = download_asset(Release.from_json(rel).asset(PACK), tmp_path)
    assert path.read_bytes() == data


def test_dest_that_is_a_file_is_a_clear_error(fake, tmp_path, capsys):
    fake.add_release(UPSTREAM, "v1.5.1", assets={PACK: b"PK..."})
    (tmp_path / "d").write_text("I am a file")
    code, out = fetch(capsys, tmp_path / "d")
    assert code == 2 and "cannot create the folder" in out.err and str(tmp_path / "d") in out.err
    assert (tmp_path / "d").read_text() == "I am a file"


def test_disk_full_while_downloading_is_a_clear_error_and_leaves_no_part_file(fake, tmp_path, capsys, monkeypatch):
    import errno

    import bot.github.assets as assets
    fake.add_release(UPSTREAM, "v1.5.1", assets={PACK: b"PK" + b"z" * 5000})
    real_open = open

    class Full:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

        def write(self, b):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(assets, "open", lambda p, m="r", *a, **k: Full(real_open(p, m, *a, **k)), raising=False)
    code, out = fetch(capsys, tmp_path / "d")
    assert code == 2 and "No space left on device" in out.err and f"{PACK}.part" in out.err
    assert list((tmp_path / "d").iterdir()) == []


def test_fetch_pack_keeps_the_pack_in_dest(world, capsys):
    _pack_world(world)
    dest = world.tmp / "dest"
    code, out = cli(capsys, "fetch-pack", "--version", "1.5.1", "--output-dir", str(dest), "--upstream", f"github:{UPSTREAM}")
    assert code == 0 and sorted(p.name for p in dest.iterdir()) == ["PyTorch.ExecuTorch.1.5.1.pack"]


def test_run_deletes_the_folder_it_downloaded_the_pack_into(world, capsys, monkeypatch):
    import tempfile
    _pack_world(world)
    tmp = world.tmp / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    assert cli(capsys, "run", "--repo", str(checkout(world)), "--upstream", f"github:{UPSTREAM}")[0] == 0
    assert "**Passed** for version `1.5.1`" in pr_body_of(world)["body"]
    assert list(tmp.iterdir()) == []


def test_verify_asset_calls_verify_pack_with_its_signature(world, monkeypatch, tmp_path):
    from bot.github import flow
    from bot.github.source import GitHubSource
    from bot.pack import verify
    _pack_world(world)
    seen = []

    def fake_verify(pack, version, *, tag=None):
        seen.append((pack.name, version, tag, pack.is_file()))
        return "REPORT"
    monkeypatch.setattr(verify, "verify_pack", fake_verify)
    asset = GitHubSource.from_spec(f"github:{UPSTREAM}").release("v1.5.1").assets[0]
    path, report = flow.verify_asset(asset, "1.5.1", "v1.5.1")
    assert report == "REPORT" and path is None
    assert seen == [("PyTorch.ExecuTorch.1.5.1.pack", "1.5.1", "v1.5.1", True)]
    path, _ = flow.verify_asset(asset, "1.5.1", "v1.5.1", tmp_path / "keep")
    assert path == tmp_path / "keep" / "PyTorch.ExecuTorch.1.5.1.pack" and path.is_file()


def test_private_upstream_asset_is_downloaded_through_the_api_with_the_token(world, capsys, objects_host):
    pack = _pack_world(world)
    world.repo(UPSTREAM).private = True
    objects_host.assets = world.assets
    world.asset_host = objects_host.url            # the 302 goes to another 127.0.0.1 port
    dest = world.tmp / "dest"
    code, out = cli(capsys, "fetch-pack", "--version", "1.5.1", "--output-dir", str(dest), "--upstream", f"github:{UPSTREAM}")
    assert code == 0, out.err
    assert (dest / "PyTorch.ExecuTorch.1.5.1.pack").read_bytes() == pack.read_bytes()
    api = [s for s in world.requests if "/releases/assets/" in s.path]
    assert len(api) == 1 and api[0].headers["Accept"] == "application/octet-stream"
    assert api[0].headers["Authorization"] == f"Bearer {TOKEN}"
    got = [s for s in objects_host.requests if s.path.startswith("/download/")]
    assert len(got) == 1 and "Authorization" not in got[0].headers


def test_a_redirect_on_the_same_host_gets_no_token_either(world, capsys):
    _pack_world(world)
    world.repo(UPSTREAM).private = True
    code, out = cli(capsys, "fetch-pack", "--version", "1.5.1", "--output-dir", str(world.tmp / "d"),
                    "--upstream", f"github:{UPSTREAM}")
    assert code == 0, out.err
    got = [s for s in world.requests if s.path.startswith("/download/")]
    assert len(got) == 1 and "Authorization" not in got[0].headers


def test_without_a_token_the_browser_download_url_is_used(world, capsys, monkeypatch):
    _pack_world(world)
    monkeypatch.delenv("GITHUB_TOKEN")
    code, out = cli(capsys, "fetch-pack", "--version", "1.5.1", "--output-dir", str(world.tmp / "d"),
                    "--upstream", f"github:{UPSTREAM}")
    assert code == 0, out.err
    assert not [s for s in world.requests if "/releases/assets/" in s.path]
    assert [s for s in world.requests if s.path.startswith("/download/")]
