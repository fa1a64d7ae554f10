"""Publish an l-diverse table by suppression (Xiao, Yi and Tao, EDBT 2010, §3).

Each group of a verified partition is published with the QI attributes on which its records
differ replaced by ``*``; the other cells, rows and columns are the input's. The sensitive column
is kept as it is: every group is l-eligible, so within each published QI class no sensitive value
occurs in more than a fraction 1/l of the records.
"""

from typing import Any

import numpy as np
import pandas as pd

from anonratio.instances.base import verify
from anonratio.instances.kanonymity.instance import KAnonymityInstance
from anonratio.instances.kanonymity.publish import publish as publish_suppressed
from anonratio.instances.ldiversity.instance import LDiversityInstance
from anonratio.instances.table import Table
from anonratio.instances.validation import check_instance

__all__ = ["publish", "published_diversity"]


def publish(
    instance: LDiversityInstance, labels: Any, *, frame: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The published table of an l-diverse partition (verified here first).

    Parameters
    ----------
    instance : LDiversityInstance
    labels : array of int or Solution
        A partition that :func:`~anonratio.instances.verify` accepts.
    frame : pandas.DataFrame, optional
        The original data: its QI cells are replaced, everything else kept (as in
        :func:`anonratio.instances.kanonymity.publish.publish`).

    Returns
    -------
    pandas.DataFrame
    """
    check_instance(instance, LDiversityInstance, "instance")
    labels = np.asarray(getattr(labels, "labels", labels), dtype=np.int64)
    verify(instance, labels)
    t = instance.table
    plain = Table(t.codes, t.attributes, t.values, weights=None)  # suppression only
    # an l-eligible group holds at least l >= 2 records: the suppression publisher of
    # k-anonymity with k = 2 stars exactly the non-constant attributes of every group
    return publish_suppressed(KAnonymityInstance(plain, 2), labels, frame=frame)


def published_diversity(published: pd.DataFrame, qi: list[str], sensitive: str) -> tuple[int, int]:
    """``(smallest class, smallest class / largest sensitive count)`` of a published table.

    Read from the published cells alone: records with identical QI cells form a class; the
    second number is the largest ``l`` for which every class is l-eligible
    (``min over classes of |class| // max sensitive count``).
    """
    key = published[qi].astype(str).apply(tuple, axis=1)
    frame = pd.DataFrame({"key": key, "s": published[sensitive].astype(str)})
    sizes = frame.groupby("key").size()
    top = frame.groupby(["key", "s"]).size().groupby(level=0).max()
    return int(sizes.min()), int((sizes // top.reindex(sizes.index)).min())
