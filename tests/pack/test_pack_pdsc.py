"""The hardened PDSC parser: no entities, no DTD, lines in every error; bundles and defines."""

from __future__ import annotations

import pytest

from bot.pack.pdsc import PdscError, parse_pdsc
from bot.pack.verify import verify_pack
from packgen import make_pack

XXE = b"""<?xml version="1.0"?>
<!DOCTYPE package [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<package schemaVersion="1.7"><vendor>&secret;</vendor><name>ExecuTorch</name></package>
"""

LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<package schemaVersion="1.7"><vendor>&lol9;</vendor></package>
"""


def test_external_entity_is_refused_with_its_line():
    with pytest.raises(PdscError) as exc:
        parse_pdsc(XXE, "PyTorch.ExecuTorch.pdsc")
    assert str(exc.value).startswith("PyTorch.ExecuTorch.pdsc:2: declares a DOCTYPE")
    assert exc.value.exit_code == 2


def test_billion_laughs_is_refused():
    with pytest.raises(PdscError, match="DTDs and entities are refused"):
        parse_pdsc(LAUGHS, "PyTorch.ExecuTorch.pdsc")


@pytest.mark.parametrize("data", [XXE, LAUGHS])
def test_entity_pdsc_in_a_pack_fails_the_parse_check(tmp_path, data):
    report = verify_pack(make_pack(tmp_path, pdsc_bytes=data), "1.5.1")
    res = report.check("pdsc-parse")
    assert res.status == "fail"
    assert "DTDs and entities are refused" in res.detail
    assert report.failed
    assert "root:" not in res.detail  # nothing from /etc/passwd ever shows up


def test_malformed_xml_names_the_line():
    with pytest.raises(PdscError) as exc:
        parse_pdsc(b'<?xml version="1.0"?>\n<package>\n  <vendor>PyTorch</name>\n</package>\n', "x.pdsc")
    assert str(exc.value).startswith("x.pdsc:3: not well-formed XML")


def test_wrong_root_element():
    with pytest.raises(PdscError, match="expected <package>"):
        parse_pdsc(b"<pack/>", "x.pdsc")


def test_bundle_attributes_are_inherited_and_defines_collected():
    pdsc = parse_pdsc(b"""<package schemaVersion="1.7"><vendor>PyTorch</vendor><name>ExecuTorch</name>
<releases><release version="1.5.1" date="2026-09-30"/></releases>
<components>
  <bundle Cbundle="ET" Cclass="Machine Learning" Cversion="1.5.1">
    <component Cgroup="ExecuTorch" Csub="Runtime">
      <RTE_Components_h>#define RTE_ML_EXECUTORCH_RUNTIME
#define ET_LOG_LEVEL 2</RTE_Components_h>
      <files><file category="include" name="include/"/></files>
    </component>
  </bundle>
</components></package>""", "p.pdsc")
    (c,) = pdsc.components
    assert (c.cclass, c.cbundle, c.cversion, c.csub) == ("Machine Learning", "ET", "1.5.1", "Runtime")
    assert c.defines == ("RTE_ML_EXECUTORCH_RUNTIME", "ET_LOG_LEVEL=2")
    assert c.ident == "Machine Learning&ET:ExecuTorch:Runtime"
    assert c.files[0].line == 8
    assert pdsc.releases[0].version == "1.5.1"
