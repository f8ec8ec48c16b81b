"""A fleet run: many template repositories (and branches) brought to ExecuTorch releases from one place.

``listfile`` reads the fleet list, ``remote`` asks GitHub with conditional
requests (ETags kept in ``cache``), ``current`` reads a template's pins
without a checkout, ``plan`` groups the templates by target pack version
into the workflow's matrices, ``summary`` renders one row per template.
See docs/fleet.md.
"""
