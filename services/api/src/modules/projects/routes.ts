import { createProject } from './create-project';
import { deleteProject } from './delete-project';
import { getProject } from './get-project';
import { listProjects } from './list-projects';
import { updateProject } from './update-project';

export const projectRoutes = [listProjects, createProject, getProject, updateProject, deleteProject];
