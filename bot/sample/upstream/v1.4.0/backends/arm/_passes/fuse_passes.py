"""Invented sample passes."""


class FuseConstantsPass:
    pass
