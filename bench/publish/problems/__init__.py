"""The publishers of the publishable problems, one module per problem module of
:mod:`anonratio.bench.problems`, each exporting ``PUBLISHER``
(a :class:`~anonratio.bench.publish.publisher.Publisher`), which the problem's declaration names
(``publisher="anonratio.bench.publish.problems.<module>:PUBLISHER"``)."""
