"""Cluster mode: several ``truco serve`` nodes on one PostgreSQL and one Redis form one site
(docs/cluster.md). Nothing here is imported by the embedded default."""
