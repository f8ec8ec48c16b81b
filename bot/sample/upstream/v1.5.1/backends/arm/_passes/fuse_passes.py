"""Invented sample passes."""


class FuseConstantsPass:
    pass


class FuseQuantizedActivationPass:
    pass
