"""python -m dpexplore.hub: the demo's configuration and its input checks (the hub itself runs in
tests/browser/test_hub_demo.py)."""

import pytest

from dpexplore.hub import MAX_DEMO_STUDENTS, demo_config, main, recipe_path


def test_the_demo_config_loads_the_recipe_and_names_the_demo_users(tmp_path):
    text = demo_config(tmp_path, port=18000, students=3, password="12345678", chp="/x/chp")
    assert f"load_subconfig({str(recipe_path())!r})" in text
    assert "['instructor', 'student1', 'student2', 'student3']" in text
    assert 'c.JupyterHub.ip = "127.0.0.1"' in text and "c.JupyterHub.port = 18000" in text
    assert str(tmp_path / "polls") in text  # one shared poll folder for every demo server
    compile(text, "jupyterhub_config.py", "exec")


@pytest.mark.parametrize("kw, msg", [({"students": 0}, "students must be an integer in"),
                                     ({"students": MAX_DEMO_STUDENTS + 1}, "students must be an integer in"),
                                     ({"students": 2.0}, "students must be an integer in"),
                                     ({"password": "short"}, "at least 8 characters")])
def test_bad_demo_settings_are_refused(tmp_path, kw, msg):
    args = {"port": 18000, "students": 2, "password": "12345678", "chp": "/x/chp", **kw}
    with pytest.raises(ValueError, match=msg):
        demo_config(tmp_path, **args)


@pytest.mark.parametrize("argv, msg", [(["demo", "--students", "99"], "--students must be in"),
                                       (["demo", "--port", "80"], "--port must be in")])
def test_the_command_line_refuses_out_of_range_values(argv, msg, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert msg in capsys.readouterr().err
