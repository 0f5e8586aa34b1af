"""Paths as the stages read them: resources, shared prefixes, shapes."""

from rag.corpus.paths import path_prefixes, path_shape, resource_of, top_segment


def test_resource_of_is_the_last_non_parameter_segment_singular() -> None:
    assert resource_of("/unified/hris/employees/{id}") == "employee"
    assert resource_of("/unified/hris/employees/{id}/documents") == "document"
    assert resource_of("/{id}") == ""


def test_prefixes_are_the_segments_most_paths_share() -> None:
    paths = ["/unified/hris/employees", "/unified/hris/employees/{id}", "/unified/hris/companies"]
    prefixes = path_prefixes(paths)
    assert prefixes == frozenset({"unified", "hris"})
    assert top_segment("hris", "/unified/hris/employees/{id}/documents", prefixes) == "employees"
    assert path_prefixes(["/one"]) == frozenset()


def test_path_shape_writes_every_parameter_the_same_way() -> None:
    assert path_shape("/users/{user_id}/") == "/users/{}"
    assert path_shape("/Users/{id}") == "/users/{}"
    assert path_shape("/") == "/"
