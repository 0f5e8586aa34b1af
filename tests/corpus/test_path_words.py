"""The words of a path: a fragment written as a query names the operation (AWS's specs)."""

from rag.corpus.path_words import fragment_name, path_action, resource_segments
from rag.corpus.paths import resource_of


def test_a_fragment_written_as_a_query_names_the_operation_by_its_first_value() -> None:
    assert fragment_name("/#Action=CreateQueue") == "CreateQueue"
    assert fragment_name("/#X-Amz-Target=Logs_20140328.CreateLogGroup") == "CreateLogGroup"  # no service prefix
    assert fragment_name("/#Operation=CancelJob&Action=CancelJob") == "CancelJob"
    assert fragment_name("/files/{file_id}#add_shared_link") == "add_shared_link"  # Box's: the fragment itself
    assert fragment_name("/files/{file_id}") == ""


def test_what_an_aws_operation_acts_on_is_its_name_after_the_verb_whatever_the_verb() -> None:
    # Before, the whole `Action=CreateQueue` was the resource: a follow-up's "delete it" found "no endpoint to
    # delete action=create queue records".
    assert resource_segments("/#Action=CreateQueue") == ["queue"]
    assert resource_of("/{AccountNumber}/{QueueName}/#Action=DeleteQueue") == "queue"
    assert path_action("/#X-Amz-Target=Logs_20140328.PutMetricFilter") == ("put", "metric_filter")
    assert path_action("/#Action=DescribeLogGroups") == ("describe", "log_groups")
    assert resource_of("/#Action=DescribeLogGroups") == resource_of("/#Action=DeleteLogGroup") == "log_group"
    # A plain fragment still needs a verb the question words know (Box's `#folders` names folders).
    assert path_action("/shared_items#folders") == ("", "")
    assert resource_segments("/analyze#overload=stream") == ["analyze", "stream"]  # one word: no verb
