"""Publishing an anonymized table: the request (request), the release of the table
(release) and the pipeline that runs the algorithm, enforces and checks every privacy model
(anonymize).
"""
