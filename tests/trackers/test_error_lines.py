"""An error's key path is placed on the line of the YAML text where the admin wrote it."""

from trackers import validate_config
from trackers.config.lines import field_lines

TEXT = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            resources:
              max: {memory: 10G}
            limits:
              - limit: team
                users: [bob]
                maxresources: {memory: 20G}
"""


def test_the_error_of_a_limit_lands_on_its_maxresources_line():
    (error,) = validate_config(TEXT)
    assert field_lines(TEXT, [error["field"]]) == {error["field"]: 12}


def test_a_path_into_a_missing_key_gets_the_nearest_enclosing_line():
    field = "partitions[0].queues[0].queues[0].limits[0].maxapplications"
    assert field_lines(TEXT, [field]) == {field: 10}


def test_keys_match_whatever_their_case_and_an_index_out_of_range_stops_at_its_list():
    text = TEXT.replace("maxresources", "MaxResources")
    assert field_lines(text, ["partitions[0].queues[0].queues[0].limits[0].maxresources"]) == {
        "partitions[0].queues[0].queues[0].limits[0].maxresources": 12
    }
    assert field_lines(TEXT, ["partitions[3].queues"]) == {"partitions[3].queues": 1}
    assert field_lines(TEXT, ["nothing.here"]) == {}


def test_text_that_is_not_yaml_places_nothing():
    assert field_lines("a: [unclosed", ["a"]) == {}
    assert field_lines("", ["partitions"]) == {}
