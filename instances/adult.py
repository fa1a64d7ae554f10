"""What the suite knows of UCI Adult before reading it: its usual quasi-identifiers.

A module of its own, without pandas, so that a declaration naming them (the ``kanon-adult`` and
``ldiv-adult`` families) does not load the table readers of :mod:`anonratio.instances.loaders`.
"""

__all__ = ["ADULT_QI"]

#: the usual 8 quasi-identifiers of Adult (its 9th column, ``salary-class``, is the sensitive one)
ADULT_QI = (
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
)
