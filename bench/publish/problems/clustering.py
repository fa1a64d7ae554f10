"""Publishing clusters (r-gather, r-cellular): each record's numeric QI cells replaced by its
cluster's center, at least r records per cluster, and a second table of the clusters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from anonratio.bench.declarations import Algorithm
from anonratio.bench.publish.publisher import Publisher
from anonratio.bench.publish.release import Release, check_k, check_release, class_summary
from anonratio.bench.publish.request import Request, Source
from anonratio.instances.privacy import KAnonymity
from anonratio.instances.validation import check_int

__all__ = ["ClusterPublisher", "PUBLISHER"]


class ClusterPublisher(Publisher):
    """Cluster centers: the cluster size r is given as ``k``."""

    parameter = "k"
    size_name = "r"
    parameter_text = "the cluster size r"
    clusters = True

    def check_size(self, value: Any, *, sensitive: str | None, names: Mapping[str, str]) -> int:
        """``r`` an integer of at least 2 (with r = 1 every record would be published as it is);
        the range ``[2, n_records]`` is checked once the data is read."""
        name = names.get("k", "k")
        if not isinstance(value, int | np.integer) or value < 2:
            raise ValueError(
                f"`{name}` must be an integer >= 2 to publish clusters (with r = 1 every record "
                f"is its own cluster and is published as it is), got {value!r}"
            )
        return check_int(name, value)

    def why_not(self, algorithm: Algorithm) -> str:
        return f"{algorithm.name!r} clusters numeric quasi-identifiers"

    def instance(self, request: Request, source: Source) -> Any:
        from anonratio.instances.clustering import RCellularInstance, RGatherInstance
        from anonratio.instances.clustering.publish import points_from_frame
        from anonratio.instances.frame_columns import name_hint

        frame = source.frame
        if request.sensitive is not None and request.sensitive not in frame.columns:
            what = request.name("sensitive")
            hint = name_hint([request.sensitive], list(frame.columns), what)
            raise ValueError(f"{what} column {request.sensitive!r} is not in the header{hint}")
        points = points_from_frame(
            frame, list(request.qi), scaling=request.scaling, lines=source.lines, source=source.name
        )
        check_k(request, len(points))
        cls = {"r-gather": RGatherInstance, "r-cellular": RCellularInstance}[request.problem]
        return cls(points, r=request.k)

    def release(self, request: Request, source: Source, instance: Any, solution: Any) -> Release:
        from anonratio.instances import verify
        from anonratio.instances.clustering.publish import publish_clusters
        from anonratio.instances.clustering.verify import ClusteringVerification

        check = verify(instance, solution)  # the cells published are the ones checked
        assert isinstance(check, ClusteringVerification)  # that of a feasible clustering:
        cost, n_clusters, max_radius = check.cost, check.n_clusters, check.max_radius
        assert cost is not None and n_clusters is not None and max_radius is not None
        labels = np.asarray(solution.labels)
        published, clusters = publish_clusters(
            source.frame, list(request.qi), labels, check.centers, check.radii
        )
        withheld = np.zeros(instance.n, dtype=bool)
        sensitive: tuple[np.ndarray | None, int | None] = (None, None)
        if request.sensitive is not None:
            codes, uniques = pd.factorize(source.frame[request.sensitive].astype(str).str.strip())
            sensitive = (codes.astype(np.int64), len(uniques))
        checks, sizes = check_release(
            request, source, published, withheld, KAnonymity(instance.r), sensitive
        )
        n_classes, smallest = class_summary(sizes)
        return Release(
            published=published,
            checks=checks,
            withheld=withheld,
            published_cost=float(cost),
            recoding="cluster centers",
            n_classes=n_classes,
            smallest_class=smallest,
            clusters=clusters,
            details={
                "groups": int(n_clusters),
                "max_radius": float(max_radius),
                "scaling": request.scaling,
            },
        )

    def describe(self, request: Request) -> str:
        return f"{request.problem}, r={request.k} (QI scaling {request.scaling})"


#: the publisher of the clustering problems r-gather and r-cellular
PUBLISHER = ClusterPublisher()
