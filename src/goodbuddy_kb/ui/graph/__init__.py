"""The Knowledge graph tab: extraction state, entities, relations, the ontology editor and the picture."""
