"""Primi Composti's evaluation jobs: the seed's tables (`reproduce`), exact solves of deals (`solve`),
position counts (`positions`) and terminal play (`play`)."""
