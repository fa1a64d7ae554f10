"""Paper reproductions (fig7, fig7_plot, paper_ldiv) and the comparison with other
tools (peers, peers_metrics, peers_tables, peers_tools).
"""
