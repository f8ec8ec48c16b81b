"""The PDSC is read as a stream of elements: what it reads (first of each root child, the first
<components>, bundles), what it ignores, and which error comes first when a document has two."""

from __future__ import annotations

import pytest

from bot.pack.pdsc import MAX_DEFINES_TEXT, Component, Pdsc, PdscError, PdscFile, Release, parse_pdsc

DOC = b"""<?xml version="1.0" encoding="UTF-8"?>
<package schemaVersion="1.7" xmlns:xs="http://www.w3.org/2001/XMLSchema-instance">
  <vendor><!-- the vendor -->PyTorch</vendor>
  <name>ExecuTorch</name>
  <description overview="Documentation/overview.md">ExecuTorch</description>
  <url>https://github.com/pytorch/executorch/releases/download/v1.5.1/</url>
  <license>LICENSE</license>
  <vendor>Second</vendor>
  <releases>
    <release version=" 1.5.1 " date="2026-09-30">new</release>
    <release version="1.4.0">old</release>
  </releases>
  <conditions>
    <condition id="c"><component Cclass="Hidden" Cgroup="In a condition"/></condition>
  </conditions>
  <components>
    <component Cclass="Machine Learning" Cgroup="ExecuTorch" Csub="Runtime" Cversion="1.5.1" condition="c">
      <description>runtime</description>
      <files>
        <file category="sourceCpp" name="src/runtime.cpp"/>
        <file category="include" name="include/" condition="c"/>
      </files>
      <files><file category="doc" name="ignored: only the first files element counts"/></files>
      <RTE_Components_h>
        #define RTE_ML_EXECUTORCH_RUNTIME
        #define ET_LEVEL 2
      </RTE_Components_h>
    </component>
    <bundle Cbundle="Ops" Cclass="Machine Learning" Cversion="1.5.1">
      <description>a bundle</description>
      <component Cgroup="ExecuTorch Operators" Csub="Portable add">
        <files><file category="sourceCpp" name="src/op_add.cpp"/></files>
      </component>
      <component Cgroup="ExecuTorch Operators" Csub="Portable mul" Cversion="1.5.0"/>
    </bundle>
    <component Cclass="Machine Learning" Cgroup="ExecuTorch" Csub="Last" Cversion="1.5.1"/>
  </components>
  <components>
    <component Cclass="Ignored" Cgroup="second components element"/>
  </components>
</package>
"""


def test_reads_the_first_of_each_root_child_and_the_components_of_the_first_components():
    assert parse_pdsc(DOC, "P.pdsc") == Pdsc(
        path="P.pdsc", vendor="PyTorch", name="ExecuTorch",
        url="https://github.com/pytorch/executorch/releases/download/v1.5.1/",
        releases=(Release("1.5.1", "2026-09-30", 10), Release("1.4.0", None, 11)),
        components=(
            Component(cclass="Machine Learning", cgroup="ExecuTorch", csub="Runtime", cversion="1.5.1", line=17,
                      condition="c",
                      files=(PdscFile("sourceCpp", "src/runtime.cpp", 20), PdscFile("include", "include/", 21, "c")),
                      defines=("RTE_ML_EXECUTORCH_RUNTIME", "ET_LEVEL=2")),
            Component(cclass="Machine Learning", cgroup="ExecuTorch Operators", csub="Portable add", cversion="1.5.1",
                      line=31, cbundle="Ops", files=(PdscFile("sourceCpp", "src/op_add.cpp", 32),)),
            Component(cclass="Machine Learning", cgroup="ExecuTorch Operators", csub="Portable mul", cversion="1.5.0",
                      line=34, cbundle="Ops"),
            Component(cclass="Machine Learning", cgroup="ExecuTorch", csub="Last", cversion="1.5.1", line=36),
        ),
        license="LICENSE", overview="Documentation/overview.md", url_line=6)


def test_namespaced_elements_are_read_by_their_local_name():
    doc = (b'<p:package xmlns:p="urn:x"><p:vendor>PyTorch</p:vendor><p:components>'
           b'<p:component Cclass="A" Cgroup="B"><p:files><p:file category="doc" name="d.md"/></p:files>'
           b'</p:component></p:components></p:package>')
    pdsc = parse_pdsc(doc, "P.pdsc")
    assert (pdsc.vendor, pdsc.components) == (
        "PyTorch", (Component(cclass="A", cgroup="B", csub=None, cversion=None, line=1,
                              files=(PdscFile("doc", "d.md", 1),)),))


def _oversized_defines(tail: bytes) -> bytes:
    block = b"#define X\n" * (MAX_DEFINES_TEXT // 10 + 1)
    return (b'<package>\n<components>\n<component Cclass="A" Cgroup="B">\n<RTE_Components_h>' + block
            + b"</RTE_Components_h>\n</component>\n</components>\n" + tail)


def test_a_component_that_cannot_be_read_is_reported_with_its_line():
    with pytest.raises(PdscError) as exc:
        parse_pdsc(_oversized_defines(b"</package>\n"), "P.pdsc")
    assert (exc.value.path, exc.value.line, exc.value.message) == (
        "P.pdsc", 4, f"<RTE_Components_h> holds {len(b'#define X' + bytes(1)) * (MAX_DEFINES_TEXT // 10 + 1)} "
                     f"characters, more than {MAX_DEFINES_TEXT}")


def test_a_malformed_document_is_reported_as_such_before_a_component_read_earlier():
    with pytest.raises(PdscError) as exc:
        parse_pdsc(_oversized_defines(b"<vendor>PyTorch</name>\n</package>\n"), "P.pdsc")
    assert (exc.value.line, exc.value.message.split(":")[0]) == (
        _oversized_defines(b"").count(b"\n") + 1, "not well-formed XML")


def test_a_wrong_root_is_reported_before_a_component_that_cannot_be_read():
    doc = _oversized_defines(b"</package>\n").replace(b"<package>", b"<pack>").replace(b"</package>", b"</pack>")
    with pytest.raises(PdscError) as exc:
        parse_pdsc(doc, "P.pdsc")
    assert (exc.value.line, exc.value.message) == (1, "root element is <pack>, expected <package>")


@pytest.mark.parametrize("doc, line", [(b"", 1), (b"   \n", 2)])
def test_a_document_without_an_element_is_not_well_formed_where_it_ends(doc, line):
    with pytest.raises(PdscError) as exc:
        parse_pdsc(doc, "P.pdsc")
    assert (exc.value.path, exc.value.line, exc.value.message.split(":")[0]) == ("P.pdsc", line, "not well-formed XML")
