// The sign-in page says why the last attempt failed (from its own address, as text).
const failed = new URLSearchParams(location.search).get("failed");
const why = { wrong: "Wrong user or password.", form: "User and password expected." };
if (failed) document.getElementById("failed").textContent = why[failed] || "Sign-in failed.";
