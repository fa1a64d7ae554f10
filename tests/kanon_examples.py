"""Worked k-anonymity examples of the papers, shared by the tests of the algorithms they run on."""

import pandas as pd

from anonratio.instances import Hierarchy, KAnonymityInstance, Table


def survey_instance(k: int = 3) -> KAnonymityInstance:
    """The table of Ciriani et al. (2009), Figure 1 (Zip, MaritalStatus, Sex with their
    hierarchies; 10 records), row deletion allowed: the table of their Example 3.2."""
    zips = ("22030", "22032", "22045", "22047")
    zip_h = Hierarchy.from_rows([[z, z[:4] + "*", z[:3] + "**"] for z in zips])
    mar_h = Hierarchy.from_rows(
        [
            ["married", "been_married", "*"],
            ["widow", "been_married", "*"],
            ["divorced", "been_married", "*"],
            ["single", "never_married", "*"],
        ]
    )
    sex_h = Hierarchy.from_rows([["F", "*"], ["M", "*"]])
    rows = [
        ("22030", "married", "F"),
        ("22030", "married", "F"),
        ("22032", "married", "F"),
        ("22045", "married", "M"),
        ("22045", "married", "M"),
        ("22047", "widow", "M"),
        ("22030", "divorced", "M"),
        ("22032", "divorced", "M"),
        ("22032", "divorced", "M"),
        ("22045", "single", "F"),
    ]
    df = pd.DataFrame(rows, columns=["zip", "marital", "sex"])
    table = Table.from_dataframe(df, hierarchies={"zip": zip_h, "marital": mar_h, "sex": sex_h})
    return KAnonymityInstance(table, k, "generalization", row_deletion=True)
